import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { crdDirectory } from "../../src/api/crd/files.ts";
import { installCrds } from "../../src/api/install.ts";
import { crdRevision } from "../../src/api/meta.ts";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { certificateAuthority, handshake } from "../support/certificates.ts";
import { spawnOperator } from "../support/operator-process.ts";

interface Exit {
  code: number | null;
  stderr: string;
  /** Whether the 40 s guard had to kill it (it did not exit by itself). */
  killed: boolean;
}

/** `berth operator` as a user starts it, with no BERTH_* or KUBECONFIG from this shell. */
async function runOperator(args: string[], env: Record<string, string> = {}, stopOn?: RegExp): Promise<Exit> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("BERTH_") && name !== "KUBECONFIG"),
  );
  const child = spawn(
    process.execPath,
    ["src/main.ts", "operator", "--metrics-addr=", "--health-addr=", ...args],
    { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // Once it says it runs (its signal handlers are in place), stop it as Kubernetes would.
  child.stdout.on("data", (chunk: Buffer) => {
    if (stopOn?.test(chunk.toString())) child.kill("SIGTERM");
  });
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, 40_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(killer);
  return { code, stderr, killed };
}

/** The lines a person reads: every stderr line that is not a JSON log line. */
function plainLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line !== "" && !line.startsWith("{"));
}

async function kubeconfigFor(dir: string, server: string): Promise<string> {
  const file = path.join(dir, "kubeconfig");
  await writeFile(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server, "insecure-skip-tls-verify": true } }],
      users: [{ name: "u", user: { token: "not-a-real-token" } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
  return file;
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("berth operator that cannot work exits at once with one line saying what to fix", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "berth-startup-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("without a kubeconfig and outside a cluster", async () => {
    const exit = await runOperator([], { HOME: dir });
    expect(exit.code).toBe(1);
    expect(plainLines(exit.stderr)).toEqual([
      "berth operator: loading the kubeconfig: none found: pass --kubeconfig FILE (or BERTH_KUBECONFIG), set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
    ]);
    // The first log line says what runs.
    const first = JSON.parse(exit.stderr.split("\n")[0] ?? "{}");
    expect(first).toMatchObject({ msg: "berth operator starting", node: process.version });
    expect(first.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(first.commit).toMatch(/^[0-9a-f]{7,}$|^unknown$/);
  });

  it("when the API server does not answer, after --start-timeout", async () => {
    const port = await closedPort();
    const kubeconfig = await kubeconfigFor(dir, `https://127.0.0.1:${port}`);
    const exit = await runOperator(["--kubeconfig", kubeconfig, "--start-timeout", "3s"]);
    expect(exit.code).toBe(1);
    expect(plainLines(exit.stderr)).toEqual([
      `berth operator: cannot reach the Kubernetes API server within 3s (GET /apis/berth.dev/v1alpha1: connect ECONNREFUSED 127.0.0.1:${port}); check --kubeconfig or KUBECONFIG, and that the cluster is up`,
    ]);
    // Retries are logged, each once, and end at the timeout: it exits by itself, not at the guard.
    expect(exit.stderr.match(/API server not reachable yet/g)?.length ?? 0).toBeLessThanOrEqual(3);
    expect(exit.killed).toBe(false);
  });

  it("when --metrics-cert-dir holds no usable certificate, before dialling the cluster", async () => {
    const certs = path.join(dir, "metrics-cert");
    await mkdir(certs);
    await writeFile(path.join(certs, "tls.crt"), "not a certificate");
    await writeFile(path.join(certs, "tls.key"), "not a key");
    const port = await closedPort();
    const kubeconfig = await kubeconfigFor(dir, `https://127.0.0.1:${port}`);
    const exit = await runOperator([
      "--kubeconfig",
      kubeconfig,
      "--metrics-addr=127.0.0.1:0",
      `--metrics-cert-dir=${certs}`,
    ]);
    expect(exit.code).toBe(1);
    expect(plainLines(exit.stderr)).toEqual([
      `berth operator: --metrics-cert-dir: ${certs}/tls.crt is not a PEM certificate; mount a kubernetes.io/tls Secret there (tls.crt and tls.key, as cert-manager writes them), or leave the flag out for a self-signed certificate`,
    ]);
    // Told at once, not after the unreachable API server's retries.
    expect(exit.stderr).not.toContain("API server not reachable yet");

    const absent = await runOperator([
      "--kubeconfig",
      kubeconfig,
      "--metrics-addr=127.0.0.1:0",
      `--metrics-cert-dir=${path.join(dir, "no-such-dir")}`,
    ]);
    expect(absent.code).toBe(1);
    expect(plainLines(absent.stderr)).toEqual([
      expect.stringMatching(/^berth operator: --metrics-cert-dir: \S+\/no-such-dir does not exist; mount/),
    ]);
  });

  describe("on a cluster of its own, at first without the berth CRDs", () => {
    let cluster: ControlPlane;
    beforeAll(async () => {
      // Its own control plane: the shared one has the CRDs installed by other tests.
      cluster = await startControlPlane({
        dir: path.join(dir, "cluster"),
        logger: createLogger({ level: "warn" }),
      });
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it("names the CRDs and how to install them", async () => {
      const exit = await runOperator(["--kubeconfig", cluster.kubeconfigPath]);
      expect(exit.code).toBe(1);
      expect(plainLines(exit.stderr)).toEqual([
        "berth operator: the berth CRDs are not installed (the API server does not serve berth.dev/v1alpha1); install them: kubectl apply --server-side -f crds/ (or deploy/crds, or the Helm chart)",
      ]);
      expect(exit.killed).toBe(false);
    });

    it("refuses CRDs of an older revision, naming both and the command that updates them", async () => {
      // The CRDs as a release before revision labels wrote them.
      const older = path.join(dir, "older-crds");
      await mkdir(older);
      for (const name of await readdir(crdDirectory)) {
        const text = await readFile(path.join(crdDirectory, name), "utf8");
        await writeFile(path.join(older, name), text.replace(/^\s+berth\.dev\/crd-revision: .*\n/m, ""));
      }
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cluster.kubeconfigPath);
      await installCrds(kubeConfig, { directory: older });
      const exit = await runOperator(["--kubeconfig", cluster.kubeconfigPath]);
      expect(exit.code).toBe(1);
      const version = JSON.parse(await readFile("package.json", "utf8")).version;
      expect(plainLines(exit.stderr)).toEqual([
        `berth operator: the berth CRDs projects.berth.dev, apps.berth.dev, grids.berth.dev, serverorders.berth.dev, spendlimits.berth.dev are revision 0, older than revision ${crdRevision} that berth ${version} needs; update them: kubectl apply --server-side -f crds/ of berth ${version} (deploy/crds for kustomize; helm upgrade updates the chart's)`,
      ]);

      await installCrds(kubeConfig);
      const current = await runOperator(
        ["--kubeconfig", cluster.kubeconfigPath],
        {},
        /berth operator running/,
      );
      expect(current.stderr).toContain('"msg":"operator started"');
      expect(current.code, current.stderr.slice(-2000)).toBe(0);
    });

    it("with the CRDs, serves /metrics with the --metrics-cert-dir certificate, which its CA verifies", async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cluster.kubeconfigPath);
      await installCrds(kubeConfig);
      const ca = await certificateAuthority();
      const serverName = "berth-operator-metrics.berth-system.svc";
      const leaf = await ca.issue([serverName]);
      const certs = path.join(dir, "issued-cert");
      await mkdir(certs);
      await writeFile(path.join(certs, "tls.crt"), leaf.cert);
      await writeFile(path.join(certs, "tls.key"), leaf.key);
      const operator = spawnOperator("src/main.ts", [
        "--kubeconfig",
        cluster.kubeconfigPath,
        "--metrics-addr=127.0.0.1:0",
        `--metrics-cert-dir=${certs}`,
      ]);
      try {
        const address = await vi.waitFor(
          () => {
            const match = /metrics https:\/\/(\S+)\/metrics/.exec(operator.output());
            if (match?.[1] === undefined)
              throw new Error(`not running yet:\n${operator.output().slice(-2000)}`);
            return match[1];
          },
          { timeout: 30_000, interval: 100 },
        );
        expect(await handshake(address, ca.cert, serverName)).toEqual({
          authorized: true,
          serial: leaf.serial,
        });
      } finally {
        operator.kill("SIGTERM");
      }
      expect(await operator.exited, operator.output().slice(-2000)).toBe(0);
    });
  });
});
