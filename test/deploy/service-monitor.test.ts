import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Helm } from "./chart.ts";
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
