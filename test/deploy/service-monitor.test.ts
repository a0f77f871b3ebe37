import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Helm, outcome } from "./chart.ts";
import { findObject, type Manifest, render } from "./helpers.ts";

/**
 * The ServiceMonitors of the kustomize component and of the chart: Prometheus scrapes berth's secure
 * metrics with the token of a ServiceAccount that may get /metrics and nothing else, read from a
 * Secret through `authorization`, not the deprecated bearerTokenFile (its own, cluster-reading token).
 */
let helm: Helm;

beforeAll(async () => {
  helm = await Helm.start();
});

afterAll(async () => {
  await helm?.close();
});

interface Endpoint {
  scheme?: string;
  bearerTokenFile?: string;
  authorization?: { type: string; credentials: { name: string; key: string } };
  tlsConfig?: Record<string, unknown>;
}

const endpoints = (objects: Manifest[]) =>
  (findObject(objects, "ServiceMonitor").spec as { endpoints: Endpoint[] }).endpoints;

/** The ServiceAccount whose token the ServiceMonitor sends, after checking each link from Secret to ClusterRole. */
function expectOwnScraperToken(objects: Manifest[], namespace: string, reader: string): string {
  const monitor = findObject(objects, "ServiceMonitor");
  const [endpoint, ...others] = endpoints(objects);
  expect(others).toEqual([]);
  expect(endpoint?.bearerTokenFile).toBeUndefined();
  expect(endpoint?.scheme).toBe("https");
  const credentials = endpoint?.authorization?.credentials;
  expect(endpoint?.authorization?.type).toBe("Bearer");
  expect(credentials?.key).toBe("token");
  // The Secret is in the ServiceMonitor's namespace: the Prometheus Operator reads it from there.
  const secret = findObject(objects, "Secret", credentials?.name ?? "") as Manifest & {
    type: string;
    metadata: { annotations: Record<string, string> };
  };
  expect(secret.metadata.namespace).toBe(monitor.metadata.namespace);
  expect(secret.metadata.namespace).toBe(namespace);
  expect(secret.type).toBe("kubernetes.io/service-account-token");
  const account = secret.metadata.annotations["kubernetes.io/service-account.name"] ?? "";
  expect(findObject(objects, "ServiceAccount", account).metadata.namespace).toBe(namespace);
  const bindings = objects.filter(
    (o) =>
      (o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding") &&
      (o.subjects as { kind: string; name: string; namespace: string }[]).some(
        (s) => s.kind === "ServiceAccount" && s.name === account && s.namespace === namespace,
      ),
  );
  expect(bindings.map((b) => (b.roleRef as { name: string }).name)).toEqual([reader]);
  expect(findObject(objects, "ClusterRole", reader).rules).toEqual([
    { nonResourceURLs: ["/metrics"], verbs: ["get"] },
  ]);
  return account;
}

describe("the ServiceMonitor's credentials", () => {
  it("deploy/overlays/monitoring: berth-metrics-scraper's token, good for /metrics only", async () => {
    const { objects } = await render("overlays/monitoring");
    expect(expectOwnScraperToken(objects, "berth-system", "berth-metrics-reader")).toBe(
      "berth-metrics-scraper",
    );
  });

  it("the chart: a scraper named per install, only when metrics are secure", async () => {
    const { objects } = await helm.template(
      ["--set=metrics.serviceMonitor.enabled=true"],
      "monitoring-a",
      "team-a",
    );
    expect(expectOwnScraperToken(objects, "monitoring-a", "team-a-berth-metrics-reader")).toBe(
      "team-a-berth-metrics-scraper",
    );
    expect(findObject(objects, "ClusterRoleBinding", "team-a-berth-metrics-scraper")).toBeDefined();

    const plain = await helm.template([
      "--set=metrics.serviceMonitor.enabled=true",
      "--set=metrics.secure=false",
    ]);
    expect(endpoints(plain.objects)).toEqual([{ port: "metrics", path: "/metrics", interval: "30s" }]);
    expect(plain.objects.filter((o) => o.metadata.name.includes("metrics-scraper"))).toEqual([]);

    const off = await helm.template([]);
    expect(off.objects.filter((o) => o.metadata.name.includes("metrics-scraper"))).toEqual([]);
  });
});

interface CertificateSpec {
  secretName: string;
  dnsNames: string[];
  isCA?: boolean;
  issuerRef: { name: string; kind: string; group: string };
}

interface OperatorPod {
  volumes: { name: string; secret?: { secretName: string } }[];
  containers: { args: string[]; volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }[];
}

const certificate = (objects: Manifest[], name: string) =>
  findObject(objects, "Certificate", name).spec as CertificateSpec;

/** The directory the operator is told to serve from, after checking it is where the Secret is mounted. */
function mountedCertificateSecret(deployment: Manifest): string {
  const pod = (deployment.spec as { template: { spec: OperatorPod } }).template.spec;
  const [container] = pod.containers;
  const dirs = container?.args.filter((a) => a.startsWith("--metrics-cert-dir=")) ?? [];
  expect(dirs).toHaveLength(1);
  const dir = dirs[0]?.slice("--metrics-cert-dir=".length);
  const mount = container?.volumeMounts.find((m) => m.mountPath === dir);
  expect(mount?.readOnly).toBe(true);
  const volume = pod.volumes.find((v) => v.name === mount?.name);
  return volume?.secret?.secretName ?? "";
}

describe("verified TLS with cert-manager (metrics.certManager.enabled)", () => {
  const enabled = ["--set=metrics.serviceMonitor.enabled=true", "--set=metrics.certManager.enabled=true"];

  it("bootstraps a CA, certifies the Service's names, mounts the Secret and verifies it in the ServiceMonitor", async () => {
    const { objects } = await helm.template(enabled, "monitoring-a", "team-a");
    const service = findObject(objects, "Service", "team-a-berth-operator-metrics");
    const serverName = `${service.metadata.name}.monitoring-a.svc`;

    // cert-manager's bootstrap: self-signed Issuer → CA Certificate → Issuer of that CA.
    const selfSigned = findObject(objects, "Issuer", "team-a-berth-metrics-selfsigned");
    expect(selfSigned.spec).toEqual({ selfSigned: {} });
    const ca = certificate(objects, "team-a-berth-metrics-ca");
    expect(ca.isCA).toBe(true);
    expect(ca.issuerRef).toEqual({
      name: "team-a-berth-metrics-selfsigned",
      kind: "Issuer",
      group: "cert-manager.io",
    });
    const caIssuer = findObject(objects, "Issuer", "team-a-berth-metrics-ca");
    expect(caIssuer.spec).toEqual({ ca: { secretName: ca.secretName } });

    const serving = certificate(objects, "team-a-berth-metrics-cert");
    expect(serving.issuerRef).toEqual({
      name: caIssuer.metadata.name,
      kind: "Issuer",
      group: "cert-manager.io",
    });
    expect(serving.dnsNames).toEqual([serverName, `${serverName}.cluster.local`]);
    for (const kind of ["Issuer", "Certificate"]) {
      for (const o of objects.filter((object) => object.kind === kind)) {
        expect(o.metadata.namespace, `${kind} ${o.metadata.name}`).toBe("monitoring-a");
      }
    }

    // The operator serves the Secret cert-manager writes.
    expect(mountedCertificateSecret(findObject(objects, "Deployment", "team-a-berth-operator"))).toBe(
      serving.secretName,
    );

    // Prometheus verifies it: the CA from that Secret, the name it was issued for, no skipping.
    const [endpoint] = endpoints(objects);
    expect(endpoint?.tlsConfig).toEqual({
      ca: { secret: { name: serving.secretName, key: "ca.crt" } },
      serverName,
    });
    expect(expectOwnScraperToken(objects, "monitoring-a", "team-a-berth-metrics-reader")).toBe(
      "team-a-berth-metrics-scraper",
    );
  });

  it("uses the issuer given instead of bootstrapping one, in every shard's Deployment", async () => {
    const { objects } = await helm.template([
      ...enabled,
      "--set=metrics.certManager.issuerRef.name=company-ca",
      "--set=metrics.certManager.issuerRef.kind=ClusterIssuer",
      "--set=sharding.shards={shard1}",
    ]);
    expect(objects.filter((o) => o.kind === "Issuer")).toEqual([]);
    expect(objects.filter((o) => o.kind === "Certificate").map((o) => o.metadata.name)).toEqual([
      "berth-metrics-cert",
    ]);
    expect(certificate(objects, "berth-metrics-cert").issuerRef).toEqual({
      name: "company-ca",
      kind: "ClusterIssuer",
      group: "cert-manager.io",
    });
    const deployments = objects.filter((o) => o.kind === "Deployment");
    expect(deployments.map((d) => d.metadata.name)).toEqual(["berth-operator", "berth-operator-shard1"]);
    for (const deployment of deployments) {
      expect(mountedCertificateSecret(deployment), deployment.metadata.name).toBe("berth-metrics-cert");
    }
  });

  it("without it, keeps the self-signed certificate, unverified, and no cert-manager objects", async () => {
    const { objects } = await helm.template(["--set=metrics.serviceMonitor.enabled=true"]);
    expect(endpoints(objects)[0]?.tlsConfig).toEqual({ insecureSkipVerify: true });
    expect(objects.filter((o) => o.kind === "Certificate" || o.kind === "Issuer")).toEqual([]);
    const deployment = findObject(objects, "Deployment", "berth-operator");
    const pod = (deployment.spec as { template: { spec: OperatorPod } }).template.spec;
    expect(pod.containers[0]?.args.some((a) => a.startsWith("--metrics-cert-dir"))).toBe(false);
    expect(pod.volumes.map((v) => v.name)).toEqual(["tmp"]);
  });

  it("refuses it with plain-HTTP metrics, saying why", async () => {
    const refused = await outcome(helm.template([...enabled, "--set=metrics.secure=false"]));
    expect(refused.ok).toBe(false);
    expect(refused.text).toContain("metrics.certManager.enabled needs metrics.secure");
  });
});
