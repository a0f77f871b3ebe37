import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { kinds } from "../../src/api/index.ts";
import { parseConfig } from "../../src/cli/command.ts";
import { findCommand } from "../../src/cli/run.ts";
import { Shard } from "../../src/operator/shard.ts";
import {
  applyForReal,
  dryRunApply,
  findObject,
  kubectl,
  type Manifest,
  render,
  repoRoot,
} from "./helpers.ts";

const overlays = ["overlays/default", "overlays/monitoring", "overlays/namespaced", "overlays/sharded"];

interface Container {
  image: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
}

function podSpec(deployment: Manifest) {
  const spec = deployment.spec as {
    replicas: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Container[]; volumes: { name: string; emptyDir?: object }[] };
    };
  };
  const container = spec.template.spec.containers[0];
  if (container === undefined) throw new Error("the Deployment has no container");
  return { ...spec, container };
}

/** The argument's value, e.g. flag("--metrics-addr") of ["--metrics-addr=:8080"] is ":8080". */
function flag(args: string[], name: string): string | undefined {
  return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

function portOf(container: Container, name: string): number | undefined {
  return container.ports.find((port) => port.name === name)?.containerPort;
}

describe("deploy/ kustomizations on a real apiserver", () => {
  beforeAll(async () => {
    // Server dry runs don't persist the Namespace, and namespaced objects need it to exist; the
    // stand-in monitoring CRDs make ServiceMonitor and PrometheusRule known kinds.
    const { objects } = await render("base");
    await applyForReal(JSON.stringify(findObject(objects, "Namespace")));
    await applyForReal(
      await readFile(path.join(import.meta.dirname, "fixtures", "monitoring-crds.yaml"), "utf8"),
    );
    await kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=30s",
      "crd/servicemonitors.monitoring.coreos.com",
      "crd/prometheusrules.monitoring.coreos.com",
    ]);
  });

  it.each(overlays)(
    "%s renders and the apiserver accepts every object without a warning",
    async (overlay) => {
      const { yaml, objects } = await render(overlay);
      const { stdout, stderr } = await dryRunApply(yaml);
      // Warnings include Pod Security violations of the namespace's restricted level.
      expect(stderr).toBe("");
      const lines = stdout.trim().split("\n");
      expect(lines).toHaveLength(objects.length);
      for (const line of lines) expect(line).toMatch(/serverside-applied \(server dry run\)$/);
    },
  );

  it("the restricted Pod Security check is live: a pod without the security context draws a warning", async () => {
    const { objects } = await render("overlays/default");
    const deployment = structuredClone(findObject(objects, "Deployment"));
    const { template } = podSpec(deployment);
    delete (template.spec as Record<string, unknown>).securityContext;
    for (const container of template.spec.containers) {
      container.securityContext = {};
    }
    const { stderr } = await dryRunApply(JSON.stringify(deployment));
    expect(stderr).toContain('would violate PodSecurity "restricted');
  });

  it("the monitoring overlay adds a ServiceMonitor, alerts and a dashboard the Grafana sidecar finds", async () => {
    const { objects } = await render("overlays/monitoring");
    const kinds = objects.map((o) => o.kind);
    expect(kinds).toEqual(expect.arrayContaining(["ServiceMonitor", "PrometheusRule", "ConfigMap"]));
    const dashboard = findObject(objects, "ConfigMap", "berth-dashboard");
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe("1");
    const data = dashboard.data as Record<string, string>;
    expect(Object.keys(data)).toEqual(["berth.json"]);
    expect(JSON.parse(data["berth.json"] ?? "").uid).toBe("berth-operator");
    const clusterScoped = ["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"];
    for (const object of objects.filter((o) => !clusterScoped.includes(o.kind))) {
      expect(object.metadata.namespace, `${object.kind} ${object.metadata.name}`).toBe("berth-system");
    }
  });
});

describe("the namespaced and sharded installs", () => {
  it("namespaced: a Role for berth's resources, only review rights, reading its CRDs and Namespaces cluster-wide, no CRDs", async () => {
    const { objects } = await render("overlays/namespaced");
    expect(objects.map((o) => o.kind)).not.toContain("CustomResourceDefinition");
    expect(objects.map((o) => o.kind)).not.toContain("Namespace");
    const role = findObject(objects, "Role", "berth-operator").rules as { resources: string[] }[];
    expect(role.flatMap((rule) => rule.resources)).toContain("apps");
    for (const clusterRole of objects.filter((o) => o.kind === "ClusterRole")) {
      const rules = clusterRole.rules as {
        resources?: string[];
        nonResourceURLs?: string[];
        verbs: string[];
        resourceNames?: string[];
      }[];
      const reach = rules.flatMap((rule) => rule.resources ?? rule.nonResourceURLs ?? []);
      expect(reach, clusterRole.metadata.name).toEqual(
        expect.arrayContaining([expect.stringMatching(/^(tokenreviews|subjectaccessreviews|\/metrics)$/)]),
      );
      for (const item of reach) {
        expect([
          "tokenreviews",
          "subjectaccessreviews",
          "/metrics",
          "customresourcedefinitions",
          "namespaces",
        ]).toContain(item);
      }
      // Namespaces (their pause and defaults): only read, never changed.
      for (const rule of rules.filter((r) => r.resources?.includes("namespaces"))) {
        expect(rule.verbs).toEqual(["get", "list", "watch"]);
      }
      // The CRDs: only read, and only berth's.
      for (const rule of rules.filter((r) => r.resources?.includes("customresourcedefinitions"))) {
        expect(rule.verbs).toEqual(["get"]);
        expect(rule.resourceNames).toEqual(kinds.map((kind) => `${kind.names.plural}.berth.dev`));
      }
    }
    const { container } = podSpec(findObject(objects, "Deployment"));
    expect(container.args).toContain("--namespace=$(POD_NAMESPACE)");
  });

  it("sharded: one Deployment per shard with disjoint selectors, each Lease named in the Role", async () => {
    const { objects } = await render("overlays/sharded");
    const deployments = objects.filter((o) => o.kind === "Deployment");
    const selectors = deployments.map((d) => {
      const given = podSpec(d).container.args.filter((arg) => arg.startsWith("--watch-label-selector="));
      expect(given, d.metadata.name).toHaveLength(1);
      return flag(given, "--watch-label-selector") ?? "";
    });
    expect(selectors).toEqual([
      "!berth.dev/shard",
      "berth.dev/shard in (shard1)",
      "berth.dev/shard in (shard2)",
    ]);
    const matchLabels = deployments.map((d) => JSON.stringify((d.spec as { selector: object }).selector));
    expect(new Set(matchLabels).size).toBe(deployments.length);
    const leaseRule = (
      findObject(objects, "Role", "berth-leader-election").rules as { resourceNames?: string[] }[]
    )[0];
    expect(leaseRule?.resourceNames).toEqual(selectors.map((selector) => new Shard(selector).leaseName));
    const labels = (shard: string | undefined): Record<string, string> =>
      shard === undefined ? {} : { "berth.dev/shard": shard };
    for (const shard of [undefined, "shard1", "shard2", "shard3"]) {
      const owners = selectors.filter((selector) => new Shard(selector).selector.matches(labels(shard)));
      expect(owners.length, `shard ${shard}`).toBe(shard === "shard3" ? 0 : 1);
    }
  });
});

describe("the rendered operator Deployment", () => {
  let objects: Manifest[] = [];
  let replicas = 0;
  let template: ReturnType<typeof podSpec>["template"];
  let container: Container;
  beforeAll(async () => {
    objects = (await render("overlays/monitoring")).objects;
    ({ replicas, template, container } = podSpec(findObject(objects, "Deployment", "berth-operator")));
  });

  it("passes only flags `berth operator` accepts, with valid values", async () => {
    const operator = await findCommand("operator");
    expect(operator, "`berth operator` is not in src/cli/run.ts's commands").toBeDefined();
    if (operator === undefined) return;
    // Kubernetes expands $(POD_NAMESPACE) from the downward API before the process starts.
    const args = container.args.map((arg) => arg.replaceAll("$(POD_NAMESPACE)", "berth-system"));
    expect(() => parseConfig(operator, args, {})).not.toThrow();
  });

  it("runs two replicas under leader election, with a disruption budget keeping one", () => {
    expect(replicas).toBe(2);
    expect(container.args).toContain("--leader-elect");
    const budget = findObject(objects, "PodDisruptionBudget").spec as {
      minAvailable: number;
      selector: { matchLabels: Record<string, string> };
    };
    expect(budget.minAvailable).toBe(1);
    expect(template.metadata.labels).toMatchObject(budget.selector.matchLabels);
  });

  it("probes /healthz and /readyz on the port --health-addr binds", () => {
    const healthPort = Number(flag(container.args, "--health-addr")?.split(":").pop());
    expect(portOf(container, container.livenessProbe.httpGet.port)).toBe(healthPort);
    expect(portOf(container, container.readinessProbe.httpGet.port)).toBe(healthPort);
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
  });

  it("exposes --metrics-addr through the Service the ServiceMonitor scrapes, as job berth", () => {
    const metricsPort = Number(flag(container.args, "--metrics-addr")?.split(":").pop());
    const service = findObject(objects, "Service");
    const servicePorts = (service.spec as { ports: { name: string; targetPort: string }[] }).ports;
    const servicePort = servicePorts.find((port) => port.name === "metrics");
    expect(portOf(container, servicePort?.targetPort ?? "")).toBe(metricsPort);
    expect(template.metadata.labels).toMatchObject(
      (service.spec as { selector: Record<string, string> }).selector,
    );

    const monitor = findObject(objects, "ServiceMonitor").spec as {
      jobLabel: string;
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string }[];
    };
    expect(service.metadata.labels).toMatchObject(monitor.selector.matchLabels);
    expect(monitor.endpoints.map((endpoint) => endpoint.port)).toEqual(["metrics"]);
    // The alerts and the dashboard select job="berth".
    expect(service.metadata.labels?.[monitor.jobLabel]).toBe("berth");
  });

  it("keeps the root filesystem read-only with an emptyDir for /tmp", () => {
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    const tmp = container.volumeMounts.find((mount) => mount.mountPath === "/tmp");
    expect(template.spec.volumes.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
  });

  it("points at the image tag of this package version", async () => {
    const { version } = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8"));
    expect(container.image).toBe(`ghcr.io/berth-dev/berth:${version}`);
  });
});
