import { describe, expect, it } from "vitest";
import { appKind, gridKind, kinds, projectKind, serverOrderKind } from "../index.ts";
import { crdManifest } from "./definition.ts";
import type { StructuralSchema } from "./structural.ts";

/** Every node of a schema with its path. */
function* walk(schema: StructuralSchema, path: string): Generator<[string, StructuralSchema]> {
  yield [path, schema];
  for (const [name, child] of Object.entries(schema.properties ?? {})) yield* walk(child, `${path}.${name}`);
  if (schema.items) yield* walk(schema.items, `${path}[*]`);
  if (schema.additionalProperties) yield* walk(schema.additionalProperties, `${path}{*}`);
}

function root(kind = appKind) {
  const version = crdManifest(kind).spec.versions[0];
  if (!version) throw new Error("no version");
  return version;
}

function schemaAt(kind: typeof appKind, path: string): StructuralSchema | undefined {
  return [...walk(root(kind).schema.openAPIV3Schema, "")].find(([p]) => p === path)?.[1];
}

describe("generated CRDs", () => {
  it.each(kinds.map((k) => [k.names.kind, k] as const))(
    "%s: names, scope, category and status subresource",
    (_, kind) => {
      const crd = crdManifest(kind);
      expect(crd.metadata.name).toBe(`${kind.names.plural}.berth.dev`);
      expect(crd.spec.scope).toBe("Namespaced");
      expect(crd.spec.names.categories).toEqual(["berth"]);
      expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([["v1alpha1", true, true]]);
      expect(root(kind).subresources).toEqual({ status: {} });
    },
  );

  it("uses short names no popular CRD owns (Argo CD has app and apps)", () => {
    const shortNames = kinds.flatMap((k) => k.names.shortNames);
    expect(shortNames.sort()).toEqual(["bapp", "bgrid", "border", "bproj", "bspend"]);
  });

  it("shows READY, REASON, EXTERNAL-ID and AGE by default; App adds STATE and ENDPOINT; what costs money adds COST/H", () => {
    const columns = (kind: typeof appKind) =>
      root(kind)
        .additionalPrinterColumns.filter((c) => c.priority === undefined)
        .map((c) => c.name);
    expect(columns(gridKind)).toEqual(["READY", "REASON", "EXTERNAL-ID", "AGE"]);
    for (const kind of [projectKind, serverOrderKind]) {
      expect(columns(kind)).toEqual(["READY", "REASON", "COST/H", "EXTERNAL-ID", "AGE"]);
    }
    expect(columns(appKind)).toEqual([
      "READY",
      "REASON",
      "STATE",
      "ENDPOINT",
      "COST/H",
      "EXTERNAL-ID",
      "AGE",
    ]);
    const cost = root(serverOrderKind).additionalPrinterColumns.find((c) => c.name === "COST/H");
    expect(cost?.jsonPath).toBe(".status.cost.hourly.amount");
    expect(root(appKind).additionalPrinterColumns[0]?.jsonPath).toBe(
      '.status.conditions[?(@.type=="Ready")].status',
    );
  });

  it("adds -o wide columns: App project, image and instances; ServerOrder count, power and hourly estimate", () => {
    const wide = (kind: typeof appKind) =>
      root(kind)
        .additionalPrinterColumns.filter((c) => c.priority === 1)
        .map((c) => `${c.name}=${c.jsonPath}`);
    expect(wide(appKind)).toEqual([
      "PROJECT=.spec.projectRef.name",
      "IMAGE=.spec.image",
      "MIN=.spec.instances.min",
      "MAX=.spec.instances.max",
    ]);
    expect(wide(serverOrderKind)).toEqual([
      "COUNT=.spec.count",
      "POWER=.spec.power",
      "HOURLY=.status.estimate.hourlyCost",
      "CURRENCY=.status.estimate.currency",
    ]);
    expect(wide(projectKind)).toEqual([]);
  });

  it("makes the references selectable with --field-selector", () => {
    const selectable = (kind: typeof appKind) => (root(kind).selectableFields ?? []).map((f) => f.jsonPath);
    expect(selectable(appKind)).toEqual([
      ".spec.credentialsRef.name",
      ".spec.projectRef.name",
      ".spec.projectId",
    ]);
    for (const kind of [projectKind, gridKind, serverOrderKind]) {
      expect(selectable(kind)).toEqual([".spec.credentialsRef.name"]);
    }
  });

  it.each(kinds.map((k) => [k.names.kind, k] as const))(
    "%s: every spec and status field has a description",
    (_, kind) => {
      const schema = root(kind).schema.openAPIV3Schema;
      const undocumented = [...walk(schema, "")]
        .filter(([path]) => /^\.(spec|status)/.test(path) && !path.endsWith("[*]"))
        .filter(([, node]) => !node.description)
        .map(([path]) => path);
      expect(undocumented).toEqual([]);
    },
  );

  it.each(kinds.map((k) => [k.names.kind, k] as const))(
    "%s: every spec list and string is bounded, so CEL rules stay within the cost budget",
    (_, kind) => {
      const unbounded = [...walk(root(kind).schema.openAPIV3Schema, "")]
        .filter(([path]) => path.startsWith(".spec"))
        .filter(
          ([, node]) =>
            (node.type === "array" && node.maxItems === undefined) ||
            (node.type === "string" && node.enum === undefined && node.maxLength === undefined),
        )
        .map(([path]) => path);
      expect(unbounded).toEqual([]);
    },
  );

  it("keys lists by their natural key: ports by port, env by name, conditions by type", () => {
    const keys = (path: string) => {
      const node = schemaAt(appKind, path);
      return [node?.["x-kubernetes-list-type"], node?.["x-kubernetes-list-map-keys"]];
    };
    expect(keys(".spec.ports")).toEqual(["map", ["port"]]);
    expect(keys(".spec.env")).toEqual(["map", ["name"]]);
    expect(keys(".status.conditions")).toEqual(["map", ["type"]]);
  });

  it("requires a spec where one is needed and defaults it where every field is optional", () => {
    const spec = (kind: typeof appKind) => root(kind).schema.openAPIV3Schema;
    expect(spec(appKind).required).toEqual(["spec"]);
    expect(spec(serverOrderKind).required).toEqual(["spec"]);
    expect(spec(projectKind).required).toBeUndefined();
    expect(schemaAt(projectKind, ".spec")?.default).toEqual({});
    expect(schemaAt(gridKind, ".spec")?.default).toEqual({});
  });

  it("writes the defaults users rely on", () => {
    expect(schemaAt(appKind, ".spec.ports[*].protocol")?.default).toBe("http80_load_balancer");
    expect(schemaAt(appKind, ".spec.stopped")?.default).toBe(false);
    // Resolved at reconcile (resource → Namespace annotation → operator flag), so the CRD sets none.
    expect(schemaAt(appKind, ".spec.deletionPolicy")?.default).toBeUndefined();
    expect(schemaAt(appKind, ".spec.suspend")?.default).toBe(false);
    expect(schemaAt(serverOrderKind, ".spec.count")?.default).toBe(1);
    expect(schemaAt(serverOrderKind, ".spec.approved")?.default).toBe(false);
  });

  it("passes volumes, hardware, placement and unknown source fields through", () => {
    for (const path of [".spec.volumes[*]", ".spec.hardware", ".spec.placement", ".spec.source"]) {
      expect(schemaAt(appKind, path)?.["x-kubernetes-preserve-unknown-fields"]).toBe(true);
    }
  });
});
