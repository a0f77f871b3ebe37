import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Helm } from "./chart.ts";
import type { Manifest } from "./helpers.ts";

/** NOTES.txt, what `helm install` prints: the mode, and commands that name the objects the release has. */
let helm: Helm;

beforeAll(async () => {
  helm = await Helm.start();
});

afterAll(async () => {
  await helm?.close();
});

/** Every object a command in the notes names (kind/name, --clusterrole=, Secret …), found in the release. */
function expectNamedObjectsExist(notes: string, objects: Manifest[]): void {
  const has = (kind: string, name: string) =>
    objects.some((o) => o.kind === kind && o.metadata.name === name);
  const kinds: Record<string, string> = { deployment: "Deployment", service: "Service" };
  for (const [, kind = "", name = ""] of notes.matchAll(/\b(deployment|service)\/([a-z0-9-]+)/g)) {
    expect(has(kinds[kind] ?? kind, name), `${kind}/${name}`).toBe(true);
  }
  for (const [, name = ""] of notes.matchAll(/(?:--clusterrole=|ClusterRole )([a-z0-9-]+)/g)) {
    expect(has("ClusterRole", name), `ClusterRole ${name}`).toBe(true);
  }
  for (const [, name = ""] of notes.matchAll(/ServiceAccount ([a-z0-9-]+)/g)) {
    expect(has("ServiceAccount", name), `ServiceAccount ${name}`).toBe(true);
  }
}

describe("the chart's NOTES.txt", () => {
  it("a cluster-wide install: where it runs, how to check it, the credentials Secret to create, a first Project, metrics", async () => {
    const { notes, objects } = await helm.dryRunInstall([], "ops", "berth");
    expect(notes).toContain("release berth in namespace ops, image ghcr.io/berth-dev/berth:0.1.0");
    expect(notes).toContain("cluster-wide: watches every namespace");
    expect(notes).toContain("kubectl -n ops rollout status deployment/berth-operator");
    expect(notes).toContain('"(operator started|acquired leader lease)"');
    expect(notes).toContain("Nothing publishes ghcr.io/berth-dev/berth");
    expect(notes).toContain(
      'kubectl -n ops create secret generic berth-credentials --from-literal=apiKey="$HOSTING_API_KEY"',
    );
    expect(notes).toContain("kind: Project");
    expect(notes).toContain("kubectl -n ops wait --for=condition=Ready project.berth.dev/demo");
    expect(notes).toContain("Service berth-operator-metrics, port 8443");
    expect(notes).toContain("ClusterRole berth-metrics-reader grants");
    expect(notes).toContain("https://localhost:8443/metrics");
    expectNamedObjectsExist(notes, objects);
  });

  it("a namespaced, sharded install with its own image, Secret and ServiceMonitor", async () => {
    const { notes, objects } = await helm.dryRunInstall(
      [
        "--set=watchNamespaces={team-a,team-b}",
        "--set=sharding.shards={shard1}",
        "--set=image.repository=registry.example/berth",
        "--set=image.tag=abc123",
        "--set=credentials.existingSecret=hosting-key",
        "--set=metrics.serviceMonitor.enabled=true",
        "--set=crds.install=false",
      ],
      "team-a",
      "team-a",
    );
    expect(notes).toContain("release team-a in namespace team-a, image registry.example/berth:abc123");
    expect(notes).toContain("namespaced: watches team-a, team-b only");
    expect(notes).toContain("team-a-berth-operator-shard1: those labelled berth.dev/shard=shard1");
    expect(notes).toContain("kubectl apply --server-side -k deploy/crds");
    expect(notes).not.toContain("Nothing publishes");
    expect(notes).toContain("use your Secret team-a/hosting-key");
    expect(notes).not.toContain("create secret");
    expect(notes).toContain("scrapes with the token in Secret team-a-berth-metrics-scraper-token");
    const secret = objects.find(
      (o) => o.kind === "Secret" && o.metadata.name === "team-a-berth-metrics-scraper-token",
    );
    expect(secret).toBeDefined();
    expectNamedObjectsExist(notes, objects);
  });

  it("with cert-manager's metrics certificate: what Prometheus verifies, and a curl that verifies it too", async () => {
    const { notes, objects } = await helm.dryRunInstall(
      ["--set=metrics.certManager.enabled=true", "--set=metrics.serviceMonitor.enabled=true"],
      "ops",
      "berth",
    );
    expect(notes).toContain("HTTPS with cert-manager's certificate for berth-operator-metrics.ops.svc");
    expect(notes).toContain("verifies the certificate against ca.crt of Secret berth-metrics-cert");
    expect(notes).not.toContain("self-signed");
    expect(notes).not.toContain("curl -sk");
    expect(notes).toContain(
      "curl -s --cacert berth-metrics-ca.crt --connect-to berth-operator-metrics.ops.svc:8443:localhost:8443",
    );
    // The Secret the notes read ca.crt from is the one cert-manager writes for the chart's Certificate.
    const certificate = objects.find(
      (o) => o.kind === "Certificate" && o.metadata.name === "berth-metrics-cert",
    );
    expect((certificate?.spec as { secretName?: string } | undefined)?.secretName).toBe("berth-metrics-cert");
    expect(notes).toContain("get secret berth-metrics-cert -o jsonpath='{.data.ca\\.crt}'");
    expectNamedObjectsExist(notes, objects);
  });

  it("without default credentials or secure metrics, says each namespace needs a key and metrics are plain HTTP", async () => {
    const { notes, objects } = await helm.dryRunInstall([
      "--set=defaultCredentials=false",
      "--set=watchNamespaces={team-a}",
      "--set=metrics.secure=false",
    ]);
    expect(notes).toContain("No default credentials (defaultCredentials=false)");
    expect(notes).toContain("kubectl -n team-a create secret generic berth-credentials");
    expect(notes).toContain("kubectl -n team-a apply -f -");
    expect(notes).toContain("Plain HTTP for anyone");
    expect(notes).toContain("curl -s http://localhost:8443/metrics");
    expect(notes).not.toContain("Bearer");
    expectNamedObjectsExist(notes, objects);
  });
});
