import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigPath } from "../support/kube.ts";
import { chart, Helm, hostingBaseUrlValue, outcome } from "./chart.ts";
import {
  applyForReal,
  dryRunApply,
  findObject,
  kubectl,
  type Manifest,
  type Output,
  render,
} from "./helpers.ts";

/** The chart with real Helm: lint, template (default and non-default values), install. */
let helm: Helm;
const template = (values: string[], namespace?: string, release?: string) =>
  helm.template(values, namespace, release);

/** Metrics over a cert-manager certificate that Prometheus verifies (needs metrics.secure, the default). */
const certManager = [
  "--set=metrics.certManager.enabled=true",
  "--set=metrics.serviceMonitor.enabled=true",
  "--set=sharding.shards={shard1}",
];

const nonDefault = [
  "--set=replicas=3",
  "--set=image.tag=9.9.9",
  "--set=resources.limits.memory=1Gi",
  "--set=leaderElection.enabled=true",
  "--set=credentials.create=true",
  "--set=credentials.apiKey=not-a-real-key",
  "--set=credentials.baseUrl=https://hosting.example/v1",
  "--set=defaultCredentials=true",
  "--set=watchNamespaces={helm-team-a,helm-team-b}",
  "--set=sharding.shards={shard1,shard2}",
  "--set=metrics.secure=false",
  "--set=metrics.serviceMonitor.enabled=true",
  "--set=metrics.prometheusRule.enabled=true",
  "--set=metrics.dashboard.enabled=true",
  "--set=podSecurityContext.runAsUser=1001",
  "--set=imagePullSecrets[0].name=registry-credentials",
  "--set=podAnnotations.example\\.com/team=platform",
  "--set=serviceAccount.annotations.example\\.com/role=berth",
  "--set=nodeSelector.kubernetes\\.io/os=linux",
  '--set-json=tolerations=[{"key":"dedicated","operator":"Equal","value":"operators","effect":"NoSchedule"}]',
  '--set-json=affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64","arm64"]}]}]}}}',
  "--set=extraArgs={--log-level=debug,--concurrency=16}",
  '--set-json=extraEnv=[{"name":"BERTH_DRIFT_INTERVAL","value":"5m"}]',
  "--set=metrics.serviceMonitor.labels.release=kube-prometheus-stack",
  "--set=metrics.prometheusRule.labels.release=kube-prometheus-stack",
];

interface PodSpec {
  securityContext: unknown;
  volumes: unknown;
  containers: { args: string[]; [field: string]: unknown }[];
}

function podSpec(deployment: Manifest): PodSpec {
  return (deployment.spec as { template: { spec: PodSpec } }).template.spec;
}

const rulesOf = (objects: Manifest[], kind: string, name: string) => findObject(objects, kind, name).rules;

beforeAll(async () => {
  helm = await Helm.start();
  const { objects } = await render("base");
  await applyForReal(JSON.stringify(findObject(objects, "Namespace")));
  for (const fixture of ["monitoring-crds.yaml", "cert-manager-crds.yaml"]) {
    await applyForReal(await readFile(path.join(import.meta.dirname, "fixtures", fixture), "utf8"));
  }
  for (const name of ["helm-team-a", "helm-team-b"]) {
    await applyForReal(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
  }
  await kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=30s",
    "crd/servicemonitors.monitoring.coreos.com",
    "crd/certificates.cert-manager.io",
    "crd/issuers.cert-manager.io",
  ]);
});

afterAll(async () => {
  await helm?.close();
});

describe("the Helm chart deploy/helm/berth", () => {
  it("passes helm lint --strict, with default and non-default values and with cert-manager", async () => {
    for (const values of [[], nonDefault, certManager]) {
      const { stdout } = await helm.run(["lint", "--strict", chart, hostingBaseUrlValue, ...values]);
      expect(stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    }
  });

  it.each([
    ["default values", []],
    ["non-default values", nonDefault],
    ["cert-manager's metrics certificate", certManager],
  ])("renders with %s, and the apiserver accepts every object without a warning", async (_, values) => {
    const { yaml, objects } = await template(values);
    const { stdout, stderr } = await dryRunApply(yaml);
    expect(stderr).toBe("");
    expect(stdout.trim().split("\n")).toHaveLength(objects.length);
  });

  it("renders what the kustomize install does: the same pod, RBAC, CRDs and alerts", async () => {
    const kustomize = (await render("overlays/monitoring")).objects;
    const chartObjects = (
      await template([
        "--set=metrics.serviceMonitor.enabled=true",
        "--set=metrics.prometheusRule.enabled=true",
      ])
    ).objects;
    const deployment = (objects: Manifest[]) => podSpec(findObject(objects, "Deployment", "berth-operator"));
    const { containers, ...pod } = deployment(chartObjects);
    const { containers: kustomizeContainers, ...kustomizePod } = deployment(kustomize);
    expect(pod).toEqual(expect.objectContaining(kustomizePod));
    const { imagePullPolicy, ...container } = containers[0] ?? { args: [] };
    expect(container).toEqual(kustomizeContainers[0]);
    for (const [kind, name] of [
      ["ClusterRole", "berth-operator"],
      ["Role", "berth-leader-election"],
      ["ClusterRole", "berth-metrics-reader"],
      ["ClusterRole", "berth-edit"],
      ["ClusterRole", "berth-view"],
    ] as const) {
      expect(rulesOf(chartObjects, kind, name), `${kind} ${name}`).toEqual(rulesOf(kustomize, kind, name));
    }
    // The chart's CRDs are templates (helm upgrade updates them), kept when the release is deleted.
    const crds = (objects: Manifest[]) =>
      objects
        .filter((o) => o.kind === "CustomResourceDefinition")
        .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const chartCrds = crds(chartObjects).map(({ metadata, ...rest }) => {
      const { annotations, ...others } = metadata as Manifest["metadata"] & { annotations?: unknown };
      expect(annotations, metadata.name).toEqual({ "helm.sh/resource-policy": "keep" });
      return { ...rest, metadata: others };
    });
    expect(chartCrds).toEqual(crds(kustomize));
    const spec = (objects: Manifest[], kind: string) => findObject(objects, kind).spec;
    expect(spec(chartObjects, "PrometheusRule")).toEqual(spec(kustomize, "PrometheusRule"));
    expect(spec(chartObjects, "ServiceMonitor")).toMatchObject({
      endpoints: (spec(kustomize, "ServiceMonitor") as { endpoints: unknown }).endpoints,
    });
  });

  it("shards as the kustomize component does: the same selectors and Lease names", async () => {
    const kustomize = (await render("overlays/sharded")).objects;
    const chartObjects = (await template(["--set=sharding.shards={shard1,shard2}"])).objects;
    const args = (objects: Manifest[]) =>
      objects.filter((o) => o.kind === "Deployment").map((d) => podSpec(d).containers[0]?.args);
    expect(args(chartObjects)).toEqual(args(kustomize));
    expect(rulesOf(chartObjects, "Role", "berth-leader-election")).toEqual(
      rulesOf(kustomize, "Role", "berth-leader-election"),
    );
  });

  it("watching namespaces, grants Roles there and in its own namespace, and nothing cluster-wide but reviews", async () => {
    const { objects } = await template(["--set=watchNamespaces={helm-team-a}"]);
    const roles = objects.filter((o) => o.kind === "Role" && o.metadata.name === "berth-operator");
    expect(roles.map((role) => role.metadata.namespace).sort()).toEqual(["berth-system", "helm-team-a"]);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).not.toContain("ClusterRole/berth-operator");
    expect(rulesOf(objects, "ClusterRole", "berth-operator-cluster")).toEqual(
      rulesOf((await render("overlays/namespaced")).objects, "ClusterRole", "berth-operator-cluster"),
    );
  });

  it("installs with helm install: refuses an unknown value, then deploys, and Prometheus's token may read /metrics only", async () => {
    const release = `helm-${randomBytes(3).toString("hex")}`;
    const namespace = release;
    const kubeconfig = `--kubeconfig=${kubeconfigPath()}`;
    const install = (values: string[]) =>
      helm.run([
        "install",
        release,
        chart,
        kubeconfig,
        "-n",
        namespace,
        "--create-namespace",
        "--set=credentials.create=true",
        "--set=credentials.apiKey=not-a-real-key",
        hostingBaseUrlValue,
        // The CRDs are cluster-wide and this cluster's tests install them without Helm's labels,
        // which Helm refuses to adopt: the release deploys without them, as on a cluster whose
        // CRDs are applied by a separate step.
        "--set=crds.install=false",
        "--set=metrics.serviceMonitor.enabled=true",
        ...values,
      ]);
    try {
      const refused = await outcome(install(["--set=podAnnotation.team=platform"]));
      expect(refused.ok).toBe(false);
      expect(refused.text).toContain("additional properties 'podAnnotation' not allowed");
      expect((await helm.run(["list", kubeconfig, "-n", namespace, "-q"])).stdout.trim()).toBe("");

      const { stdout } = await install([]);
      expect(stdout).toContain("STATUS: deployed");
      expect(stdout).toContain(`kubectl -n ${namespace} rollout status deployment/${release}-berth-operator`);
      const { stdout: json } = await kubectl([
        "get",
        "deployment",
        `${release}-berth-operator`,
        "-n",
        namespace,
        "-o",
        "json",
      ]);
      const deployment = JSON.parse(json) as Manifest;
      expect(podSpec(deployment).containers[0]?.args).toContain("--metrics-secure=true");
      expect(deployment.metadata.labels?.["app.kubernetes.io/instance"]).toBe(release);

      const monitor = JSON.parse(
        (await kubectl(["get", "servicemonitor", `${release}-berth-operator`, "-n", namespace, "-o", "json"]))
          .stdout,
      ) as Manifest & { spec: { endpoints: { authorization: { credentials: { name: string } } }[] } };
      const tokenSecret = monitor.spec.endpoints[0]?.authorization.credentials.name ?? "";
      const secret = JSON.parse(
        (await kubectl(["get", "secret", tokenSecret, "-n", namespace, "-o", "json"])).stdout,
      ) as Manifest & { type: string; metadata: { annotations: Record<string, string> } };
      expect(secret.type).toBe("kubernetes.io/service-account-token");
      const scraper = `system:serviceaccount:${namespace}:${secret.metadata.annotations["kubernetes.io/service-account.name"]}`;
      expect(scraper).toBe(`system:serviceaccount:${namespace}:${release}-berth-metrics-scraper`);
      expect(await canI(["get", "/metrics"], scraper)).toBe("yes");
      expect(await canI(["list", "secrets", "-n", namespace], scraper)).toBe("no");
      expect(await canI(["list", "pods", "--all-namespaces"], scraper)).toBe("no");
    } finally {
      await helm.run(["uninstall", release, kubeconfig, "-n", namespace]).catch(() => undefined);
    }
  });
});

/** `kubectl auth can-i`'s answer, "yes" or "no" (it exits 1 on "no"). */
async function canI(question: string[], user: string): Promise<string> {
  try {
    return (await kubectl(["auth", "can-i", ...question, `--as=${user}`])).stdout.trim();
  } catch (error) {
    const { stdout = "" } = error as Partial<Output>;
    if (stdout.trim() === "no") return "no";
    throw error;
  }
}
