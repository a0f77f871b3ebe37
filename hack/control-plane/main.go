// Command control-plane runs a local Kubernetes control plane for tests and `berth dev`:
// an embedded etcd and a kube-apiserver on 127.0.0.1, with RBAC on and a static admin token.
//
// It owns --data-dir (certificates, keys, etcd data) and prints one JSON line on stdout once the
// apiserver's address and credentials are known; the caller waits for /readyz and writes the
// kubeconfig. SIGINT/SIGTERM stop the apiserver, then etcd.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// announcement is the one line the TypeScript side reads from stdout.
type announcement struct {
	Server    string `json:"server"`
	CAFile    string `json:"caFile"`
	TokenFile string `json:"tokenFile"`
	EtcdURL   string `json:"etcdUrl"`
}

func main() {
	dataDir := flag.String("data-dir", "", "directory for certificates, keys and etcd data (required)")
	port := flag.Int("port", 0, "apiserver secure port (0: pick a free one)")
	verbosity := flag.String("v", "0", "apiserver log verbosity")
	watchStdin := flag.Bool("exit-on-stdin-close", false, "shut down when stdin closes (the parent died)")
	ephemeral := flag.Bool("ephemeral", false, "remove --data-dir on exit")
	flag.Parse()
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}()
	}
	if *dataDir == "" {
		fail("--data-dir is required")
	}
	err := run(*dataDir, *port, *verbosity)
	if *ephemeral {
		_ = os.RemoveAll(*dataDir)
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "control-plane:", msg)
	os.Exit(1)
}

func run(dataDir string, port int, verbosity string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdClient := loopbackURL(ports[0])
	etcdPeer := loopbackURL(ports[1])
	if port == 0 {
		port = ports[2]
	}
	files, err := writeCredentials(dataDir)
	if err != nil {
		return err
	}

	etcd, err := startEtcd(filepath.Join(dataDir, "etcd"), etcdClient, etcdPeer)
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	defer etcd.Close()

	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	line, _ := json.Marshal(announcement{Server: server, CAFile: files.ca, TokenFile: files.token, EtcdURL: etcdClient.String()})
	fmt.Println(string(line))

	cmd := app.NewAPIServerCommand()
	cmd.SetArgs([]string{
		"--etcd-servers=" + etcdClient.String(),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--tls-cert-file=" + files.servingCert,
		"--tls-private-key-file=" + files.servingKey,
		"--token-auth-file=" + files.tokenCSV,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + files.saPublic,
		"--service-account-signing-key-file=" + files.saPrivate,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--profiling=false",
		"--v=" + verbosity,
	})
	return cmd.Execute()
}

func startEtcd(dir string, client, peer *url.URL) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"stderr"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, fmt.Errorf("etcd not ready after 60s")
	}
}

// freePorts holds n listeners open at once, so the kernel cannot hand out the same port twice.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func loopbackURL(port int) *url.URL {
	return &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
}

type credentialFiles struct {
	ca, servingCert, servingKey, saPublic, saPrivate, token, tokenCSV string
}

// writeCredentials reuses the credentials in dir, or generates a CA, a serving certificate for 127.0.0.1/localhost, a service
// account key pair and an admin token (group system:masters).
func writeCredentials(dir string) (credentialFiles, error) {
	f := credentialFiles{
		ca:          filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saPublic:    filepath.Join(dir, "sa.pub"),
		saPrivate:   filepath.Join(dir, "sa.key"),
		token:       filepath.Join(dir, "admin.token"),
		tokenCSV:    filepath.Join(dir, "tokens.csv"),
	}
	if allExist(f.ca, f.servingCert, f.servingKey, f.saPublic, f.saPrivate, f.token, f.tokenCSV) {
		// A restart on a kept data dir keeps its CA and token, so existing kubeconfigs stay valid.
		return f, nil
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return f, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "berth-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return f, err
	}
	servingKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return f, err
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return f, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return f, err
	}
	tokenBytes := make([]byte, 32)
	if _, err := rand.Read(tokenBytes); err != nil {
		return f, err
	}
	token := hex.EncodeToString(tokenBytes)

	writes := []struct {
		path string
		data []byte
	}{
		{f.ca, pemBlock("CERTIFICATE", caDER)},
		{f.servingCert, pemBlock("CERTIFICATE", servingDER)},
		{f.servingKey, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(servingKey))},
		{f.saPublic, pemBlock("PUBLIC KEY", saPub)},
		{f.saPrivate, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey))},
		{f.token, []byte(token)},
		{f.tokenCSV, []byte(token + ",berth-admin,berth-admin,\"system:masters\"\n")},
	}
	for _, w := range writes {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

func allExist(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}
