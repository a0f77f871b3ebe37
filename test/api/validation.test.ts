import { beforeAll, describe, expect, it } from "vitest";
import { kinds } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { create, type Manifest, objectsApi, refusal, replaceSpec } from "./helpers.ts";
import { valid, withSpec } from "./manifests.ts";

const app = valid.app();
const order = valid.serverOrder();
const secretRef = { secretKeyRef: { name: "s", key: "k" } };

/** Each manifest breaks one rule; the apiserver's message must name the field and say what is wrong. */
const invalid: [string, Manifest, string][] = [
  ["App without spec", { ...app, spec: undefined }, "spec: Required value"],
  [
    "image and source",
    withSpec(app, { source: { provider: "github", repository: "a/b", branch: "main" } }),
    "exactly one of spec.image or spec.source must be set",
  ],
  [
    "neither image nor source",
    withSpec(app, { image: undefined }),
    "exactly one of spec.image or spec.source must be set",
  ],
  [
    "projectRef and projectId",
    withSpec(app, { projectId: "0123456789abcdef01234567" }),
    "exactly one of spec.projectRef or spec.projectId must be set",
  ],
  [
    "neither projectRef nor projectId",
    withSpec(app, { projectRef: undefined }),
    "exactly one of spec.projectRef or spec.projectId must be set",
  ],
  [
    "projectId not 24 hex characters",
    withSpec(app, { projectRef: undefined, projectId: "xyz" }),
    "spec.projectId in body should match '^[0-9a-fA-F]{24}$'",
  ],
  [
    "outputs.configMapName not a ConfigMap name",
    withSpec(app, { outputs: { configMapName: "Web_Outputs" } }),
    "spec.outputs.configMapName must be a valid ConfigMap name",
  ],
  [
    "image of the wrong type",
    withSpec(app, { image: 42 }),
    'spec.image: Invalid value: "integer": spec.image in body must be of type string',
  ],
  [
    "instances.min greater than max",
    withSpec(app, { instances: { min: 3, max: 2 } }),
    'spec.instances: Invalid value: "object": spec.instances.min must not be greater than spec.instances.max',
  ],
  ["instances without max", withSpec(app, { instances: { min: 1 } }), "spec.instances.max: Required value"],
  [
    "port 0",
    withSpec(app, { ports: [{ port: 0 }] }),
    "spec.ports[0].port in body should be greater than or equal to 1",
  ],
  [
    "port above 65535",
    withSpec(app, { ports: [{ port: 70000 }] }),
    "spec.ports[0].port in body should be less than or equal to 65535",
  ],
  [
    "port as a string",
    withSpec(app, { ports: [{ port: "80" }] }),
    "spec.ports[0].port in body must be of type integer",
  ],
  [
    "duplicate ports",
    withSpec(app, { ports: [{ port: 80 }, { port: 80, protocol: "tcp" }] }),
    "spec.ports[1]: Duplicate value",
  ],
  [
    "env name starting with a digit",
    withSpec(app, { env: [{ name: "1ST", value: "a" }] }),
    'spec.env[0].name: Invalid value: "string": env var names must start with a letter or underscore',
  ],
  [
    "env name with a dash",
    withSpec(app, { env: [{ name: "MY-VAR", value: "a" }] }),
    'spec.env[0].name: Invalid value: "string": env var names must start with a letter or underscore',
  ],
  [
    "env with value and valueFrom",
    withSpec(app, { env: [{ name: "A", value: "a", valueFrom: secretRef }] }),
    'spec.env[0]: Invalid value: "object": each env entry must set exactly one of value or valueFrom',
  ],
  [
    "env with neither value nor valueFrom",
    withSpec(app, { env: [{ name: "A" }] }),
    'spec.env[0]: Invalid value: "object": each env entry must set exactly one of value or valueFrom',
  ],
  [
    "duplicate env names",
    withSpec(app, {
      env: [
        { name: "A", value: "1" },
        { name: "A", value: "2" },
      ],
    }),
    "spec.env[1]: Duplicate value",
  ],
  [
    "secretKeyRef without key",
    withSpec(app, { env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s" } } }] }),
    "spec.env[0].valueFrom.secretKeyRef.key: Required value",
  ],
  [
    "unknown deletionPolicy",
    withSpec(app, { deletionPolicy: "Keep" }),
    'spec.deletionPolicy: Unsupported value: "Keep": supported values: "Delete", "Orphan"',
  ],
  ["stopped as a string", withSpec(app, { stopped: "yes" }), "spec.stopped in body must be of type boolean"],
  [
    "source without repository",
    withSpec(app, { image: undefined, source: { provider: "github", branch: "main" } }),
    "spec.source.repository: Required value",
  ],
  [
    "gridPriorities entry with gridRef and gridId",
    withSpec(app, {
      gridPriorities: [
        { gridRef: { name: "g" }, gridId: "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", priority: 1 },
      ],
    }),
    'spec.gridPriorities[0]: Invalid value: "object": each gridPriorities entry must set exactly one of gridRef or gridId',
  ],
  [
    "gridPriorities gridId not a GUID",
    withSpec(app, { gridPriorities: [{ gridId: "grid-1", priority: 1 }] }),
    "spec.gridPriorities[0].gridId in body should match",
  ],
  ["count 0", withSpec(order, { count: 0 }), "spec.count in body should be greater than or equal to 1"],
  [
    "negative count",
    withSpec(order, { count: -2 }),
    "spec.count in body should be greater than or equal to 1",
  ],
  [
    "maxHourlyCost not a decimal",
    withSpec(order, { maxHourlyCost: "1,50" }),
    'spec.maxHourlyCost: Invalid value: "string": spec.maxHourlyCost must be a decimal number written as a string',
  ],
  [
    "maxHourlyCost as a number",
    withSpec(order, { maxHourlyCost: 1.5 }),
    "spec.maxHourlyCost in body must be of type string",
  ],
  [
    "approved without maxHourlyCost",
    withSpec(order, { approved: true }),
    "spec.maxHourlyCost: Required value: spec.maxHourlyCost is required when spec.approved is true",
  ],
  ["ServerOrder without region", withSpec(order, { region: undefined }), "spec.region: Required value"],
  [
    "duplicate gridIds",
    withSpec(order, {
      gridIds: ["3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"],
    }),
    "spec.gridIds[1]: Duplicate value",
  ],
  [
    "Grid gridId not a GUID",
    withSpec(valid.grid(), { gridId: "not-a-guid" }),
    "spec.gridId in body should match",
  ],
  [
    "empty Project displayName",
    withSpec(valid.project(), { displayName: "" }),
    "spec.displayName in body should be at least 1 chars long",
  ],
  [
    "ServerOrder orderId with whitespace",
    withSpec(order, { orderId: "ord 1" }),
    "spec.orderId in body should match",
  ],
  [
    "whitespace-only App displayName (the service trims names to nothing)",
    withSpec(app, { displayName: " \n" }),
    "spec.displayName in body should match '\\S'",
  ],
];

/** Each update changes a field that is fixed once the object exists. */
const immutable: [string, Manifest, Manifest, string][] = [
  [
    "App appId changed",
    withSpec(app, { appId: "0123456789abcdef01234567" }),
    withSpec(app, { appId: "fedcba9876543210fedcba98" }),
    'spec.appId: Invalid value: "object": spec.appId cannot be added, changed or removed after creation',
  ],
  [
    "App appId added",
    app,
    withSpec(app, { appId: "0123456789abcdef01234567" }),
    "spec.appId cannot be added, changed or removed after creation",
  ],
  [
    "Project projectId changed",
    valid.project(),
    withSpec(valid.project(), { projectId: "fedcba9876543210fedcba98" }),
    'spec.projectId: Invalid value: "object": spec.projectId cannot be added, changed or removed after creation',
  ],
  [
    "Grid gridId removed",
    valid.grid(),
    withSpec(valid.grid(), { gridId: undefined }),
    "spec.gridId cannot be added, changed or removed after creation",
  ],
  [
    "ServerOrder orderId added (an order berth placed can't become an adopted one)",
    order,
    withSpec(order, { orderId: "ord_1" }),
    "spec.orderId cannot be added, changed or removed after creation",
  ],
  [
    "ServerOrder orderId changed",
    withSpec(order, { orderId: "ord_1" }),
    withSpec(order, { orderId: "ord_2" }),
    'spec.orderId: Invalid value: "object": spec.orderId cannot be added, changed or removed after creation',
  ],
];

function schemaOf(manifest: Manifest) {
  const kind = kinds.find((k) => k.names.kind === manifest.kind);
  if (!kind) throw new Error(`not a berth kind: ${manifest.kind}`);
  return kind.schema;
}

describe("the apiserver refuses invalid berth resources", () => {
  const namespace = useNamespace("api");

  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  it("accepts the valid baselines, applying the same defaults as the operator's zod schemas", async () => {
    for (const manifest of Object.values(valid).map((make) => make())) {
      const stored = (await create(namespace.name, manifest)) as Manifest;
      expect(stored.spec, manifest.kind).toEqual(schemaOf(manifest).parse(manifest).spec);
    }
  });

  it.each(invalid)("refuses %s", async (_, manifest, message) => {
    expect(await refusal(create(namespace.name, manifest))).toContain(message);
    // The operator's own parse refuses it too, so it never acts on what the apiserver would refuse.
    expect(schemaOf(manifest).safeParse(manifest).success).toBe(false);
  });

  it.each(immutable)("refuses an update: %s", async (_, before, after, message) => {
    await create(namespace.name, before);
    expect(await refusal(replaceSpec(namespace.name, after))).toContain(message);
  });

  it("allows updates that leave fixed fields alone", async () => {
    const adopted = withSpec(app, { appId: "0123456789abcdef01234567" });
    await create(namespace.name, adopted);
    await replaceSpec(namespace.name, withSpec(adopted, { image: "nginx:1.28", stopped: true }));
    const stored = (await objectsApi().getNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      namespace: namespace.name,
      plural: "apps",
      name: app.metadata.name,
    })) as Manifest;
    expect(stored.spec).toMatchObject({
      image: "nginx:1.28",
      stopped: true,
      appId: "0123456789abcdef01234567",
    });
  });

  it.each([
    ["to another Project resource", { projectRef: { name: "other" } }],
    ["from projectRef to projectId", { projectRef: undefined, projectId: "0123456789abcdef01234567" }],
  ])("allows an App's project to change (a move) %s", async (_, spec) => {
    await create(namespace.name, app);
    await replaceSpec(namespace.name, withSpec(app, spec));
  });
});
