import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { chart, Helm, outcome } from "./chart.ts";
import { findObject, type Manifest } from "./helpers.ts";

/** The chart's values: its schema refuses what it does not know, and each value lands where it should. */
let helm: Helm;

beforeAll(async () => {
  helm = await Helm.start();
});

afterAll(async () => {
  await helm?.close();
});

interface Container {
  args: string[];
  env: { name: string; value?: string }[];
  resources: unknown;
}

interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    imagePullSecrets?: unknown;
    nodeSelector?: unknown;
    tolerations?: unknown;
    affinity: Record<string, unknown>;
    containers: Container[];
  };
}

const podTemplate = (deployment: Manifest) => (deployment.spec as { template: PodTemplate }).template;
const deployments = (objects: Manifest[]) => objects.filter((o) => o.kind === "Deployment");

function operatorContainer(deployment: Manifest): Container {
  const container = podTemplate(deployment).spec.containers[0];
  if (container === undefined) throw new Error(`${deployment.metadata.name} has no container`);
  return container;
}

describe("values.schema.json", () => {
  it.each([
    ["a top-level value", "--set=nodeSelectors.disk=ssd", "at '': additional properties 'nodeSelectors'"],
    [
      "a nested value",
      "--set=metrics.serviceMonitor.intervall=1m",
      "at '/metrics/serviceMonitor': additional properties 'intervall'",
    ],
    [
      "a field of the cert-manager issuer",
      "--set=metrics.certManager.issuerRef.nmae=company-ca",
      "at '/metrics/certManager/issuerRef': additional properties 'nmae'",
    ],
    [
      "a field of a list item",
      "--set=tolerations[0].efect=NoSchedule",
      "at '/tolerations/0': additional properties 'efect'",
    ],
  ])("refuses %s it does not know, naming it (helm template and helm lint)", async (_, value, message) => {
    for (const command of [
      ["template", "berth", chart, value],
      ["lint", "--strict", chart, value],
    ]) {
      const result = await outcome(helm.run(command));
      expect(result.ok, command.join(" ")).toBe(false);
      expect(result.text).toContain(`${message} not allowed`);
    }
  });

  it("refuses an unknown value from a values file as from --set", async () => {
    const file = await helm.valuesFile({ serviceAccount: { annotations: {}, name: "custom" } });
    const result = await outcome(helm.template([`--values=${file}`]));
    expect(result.ok).toBe(false);
    expect(result.text).toContain("at '/serviceAccount': additional properties 'name' not allowed");
  });

  it.each([
    ["a string for a number", "--set=replicas=two", "at '/replicas': got string, want integer"],
    ["a string for a list", "--set=extraArgs=--log-level=debug", "at '/extraArgs': got string, want array"],
    ["a list for a map", "--set=nodeSelector={linux}", "at '/nodeSelector': got array, want object"],
    ["a number for a string", "--set=metrics.serviceMonitor.interval=30", "got number, want string"],
    ["a value outside the enum", "--set=image.pullPolicy=Sometimes", "at '/image/pullPolicy'"],
    ["a port out of range", "--set=metrics.port=70000", "at '/metrics/port'"],
    ["a malformed quantity", "--set=resources.limits.memory=512MB", "at '/resources/limits/memory'"],
    ["a namespace that is no DNS label", "--set=watchNamespaces={Team_A}", "at '/watchNamespaces/0'"],
    ["a repeated shard", "--set=sharding.shards={s1,s1}", "at '/sharding/shards'"],
  ])("refuses %s", async (_, value, message) => {
    const result = await outcome(helm.template([value]));
    expect(result.ok).toBe(false);
    expect(result.text).toContain(message);
  });

  it("refuses the health port as the metrics port, saying why", async () => {
    const result = await outcome(helm.template(["--set=metrics.port=8081"]));
    expect(result.ok).toBe(false);
    expect(result.text).toContain("metrics.port 8081 is the operator's health port");
  });

  it("knows every value values.yaml sets and every value a template reads, and lists the keys of each map it knows", async () => {
    const schema = JSON.parse(await readFile(path.join(chart, "values.schema.json"), "utf8")) as Schema;
    const values = parse(await readFile(path.join(chart, "values.yaml"), "utf8")) as unknown;
    const missing = leafPaths(values).filter((p) => !schemaKnows(schema, p));
    expect(missing, "values.yaml sets values the schema does not describe").toEqual([]);
    const templates = path.join(chart, "templates");
    for (const file of await readdir(templates)) {
      const text = await readFile(path.join(templates, file), "utf8");
      for (const [, read = ""] of text.matchAll(/\.Values((?:\.[A-Za-z][A-Za-z0-9]*)+)/g)) {
        expect(schemaKnows(schema, read.slice(1).split(".")), `${file} reads .Values${read}`).toBe(true);
      }
    }
    expect(openObjects(schema), "objects with properties but no additionalProperties: false").toEqual([]);
  });
});

describe("the chart's pod, ServiceAccount and monitoring values", () => {
  const everything = {
    imagePullSecrets: [{ name: "registry-credentials" }],
    podAnnotations: { "example.com/team": "platform" },
    serviceAccount: { annotations: { "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/berth" } },
    nodeSelector: { "kubernetes.io/os": "linux" },
    tolerations: [{ key: "dedicated", operator: "Equal", value: "operators", effect: "NoSchedule" }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["system"] }] }],
        },
      },
    },
    extraArgs: ["--log-level=debug", "--concurrency", "16"],
    extraEnv: [
      { name: "BERTH_DRIFT_INTERVAL", value: "5m" },
      { name: "HTTPS_PROXY", valueFrom: { secretKeyRef: { name: "proxy", key: "url" } } },
    ],
    // null drops a default: no CPU limit.
    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: null, memory: "1Gi" } },
    sharding: { shards: ["shard1"] },
  };

  it("renders each value into every operator Deployment's pod, after the chart's own args and env", async () => {
    const defaults = await helm.template(["--set=sharding.shards={shard1}"]);
    const file = await helm.valuesFile(everything);
    const { objects } = await helm.template([`--values=${file}`]);
    expect(deployments(objects)).toHaveLength(2);
    for (const [i, deployment] of deployments(objects).entries()) {
      const { metadata, spec } = podTemplate(deployment);
      const before = deployments(defaults.objects)[i];
      if (before === undefined) throw new Error("the default rendering has fewer Deployments");
      expect(metadata.annotations).toEqual(everything.podAnnotations);
      expect(spec.imagePullSecrets).toEqual(everything.imagePullSecrets);
      expect(spec.nodeSelector).toEqual(everything.nodeSelector);
      expect(spec.tolerations).toEqual(everything.tolerations);
      // Added to the chart's affinity: the replicas still prefer different nodes.
      expect(spec.affinity).toEqual({
        nodeAffinity: everything.affinity.nodeAffinity,
        podAntiAffinity: podTemplate(before).spec.affinity.podAntiAffinity,
      });
      const container = operatorContainer(deployment);
      const chartArgs = operatorContainer(before).args;
      expect(container.args).toEqual([...chartArgs, ...everything.extraArgs]);
      expect(container.env).toEqual([...operatorContainer(before).env, ...everything.extraEnv]);
      expect(container.resources).toEqual({
        requests: { cpu: "250m", memory: "256Mi" },
        limits: { memory: "1Gi" },
      });
    }
    const account = findObject(objects, "ServiceAccount", "berth-operator");
    expect((account.metadata as { annotations?: unknown }).annotations).toEqual(
      everything.serviceAccount.annotations,
    );
  });

  it("renders none of them by default, and keeps the default resources and anti-affinity", async () => {
    const { objects } = await helm.template([]);
    const { metadata, spec } = podTemplate(findObject(objects, "Deployment", "berth-operator"));
    expect(metadata.annotations).toBeUndefined();
    expect(spec.imagePullSecrets).toBeUndefined();
    expect(spec.nodeSelector).toBeUndefined();
    expect(spec.tolerations).toBeUndefined();
    expect(Object.keys(spec.affinity)).toEqual(["podAntiAffinity"]);
    const container = operatorContainer(findObject(objects, "Deployment", "berth-operator"));
    expect(container.env.map((variable) => variable.name)).toEqual([
      "POD_NAMESPACE",
      "BERTH_HOSTING_BASE_URL",
    ]);
    expect(container.resources).toEqual({
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { cpu: "1", memory: "512Mi" },
    });
    const account = findObject(objects, "ServiceAccount", "berth-operator");
    expect((account.metadata as { annotations?: unknown }).annotations).toBeUndefined();
  });

  it("takes a podAntiAffinity of one's own instead of the chart's", async () => {
    const own = {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: "topology.kubernetes.io/zone", labelSelector: { matchLabels: { a: "b" } } },
      ],
    };
    const file = await helm.valuesFile({ affinity: { podAntiAffinity: own } });
    const { objects } = await helm.template([`--values=${file}`]);
    expect(podTemplate(findObject(objects, "Deployment")).spec.affinity).toEqual({ podAntiAffinity: own });
  });

  it("labels the ServiceMonitor and PrometheusRule for the Prometheus that selects them", async () => {
    const { objects } = await helm.template([
      "--set=metrics.serviceMonitor.enabled=true",
      "--set=metrics.serviceMonitor.labels.release=kube-prometheus-stack",
      "--set=metrics.prometheusRule.enabled=true",
      "--set=metrics.prometheusRule.labels.prometheus=platform",
    ]);
    const labels = (kind: string) => findObject(objects, kind).metadata.labels;
    expect(labels("ServiceMonitor")).toMatchObject({
      release: "kube-prometheus-stack",
      "app.kubernetes.io/instance": "berth",
    });
    expect(labels("PrometheusRule")).toMatchObject({
      prometheus: "platform",
      "app.kubernetes.io/name": "berth",
    });
  });
});

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
}

/** The paths of values.yaml's leaves; an empty map or list is a leaf. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (
    value === null ||
    typeof value !== "object" ||
    Array.isArray(value) ||
    Object.keys(value).length === 0
  ) {
    return [prefix];
  }
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
}

/** Whether the schema describes the value at `keys` (an object without properties takes any). */
function schemaKnows(schema: Schema, keys: string[]): boolean {
  let node: Schema = schema;
  for (const key of keys) {
    const next: Schema | boolean | undefined =
      node.properties?.[key] ?? node.additionalProperties ?? node.properties === undefined;
    if (next === false) return false;
    if (next === true) return true;
    node = next;
  }
  return true;
}

/** The paths of the schema's objects that list properties yet take others. */
function openObjects(schema: Schema, at = ""): string[] {
  const own = schema.properties !== undefined && schema.additionalProperties !== false ? [at || "/"] : [];
  const children = [
    ...Object.entries(schema.properties ?? {}).map(([key, child]) => openObjects(child, `${at}/${key}`)),
    ...(schema.items === undefined ? [] : [openObjects(schema.items, `${at}/*`)]),
    ...(typeof schema.additionalProperties === "object"
      ? [openObjects(schema.additionalProperties, `${at}/*`)]
      : []),
  ];
  return [...own, ...children.flat()];
}
