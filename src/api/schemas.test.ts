import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { appSchema, appSpecSchema, kinds, projectSchema, serverOrderSpecSchema } from "./index.ts";

const samplesDir = fileURLToPath(new URL("../../deploy/samples/", import.meta.url));

const appSpec = { projectRef: { name: "demo" }, image: "nginx:1.27" };

function problems(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  return (result.error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("zod schemas", () => {
  it("accept every berth sample in deploy/samples", async () => {
    const files = (await readdir(samplesDir)).filter(
      (name) => name.endsWith(".yaml") && name !== "kustomization.yaml",
    );
    const seen = new Set<string>();
    for (const file of files) {
      for (const document of parseAllDocuments(await readFile(`${samplesDir}${file}`, "utf8"))) {
        const object = document.toJS() as { kind: string; apiVersion: string };
        if (object.apiVersion !== "berth.dev/v1alpha1") continue;
        const kind = kinds.find((k) => k.names.kind === object.kind);
        expect(kind, `${file}: unknown kind ${object.kind}`).toBeDefined();
        expect(problems(kind?.schema.safeParse(object) ?? { success: false }), file).toEqual([]);
        seen.add(object.kind);
      }
    }
    expect([...seen].sort()).toEqual(["App", "Grid", "Project", "ServerOrder"]);
  });

  it("apply the same defaults as the CRD", () => {
    const app = appSpecSchema.parse({ ...appSpec, ports: [{ port: 80 }] });
    expect(app).toMatchObject({ stopped: false, suspend: false });
    // No default in the schema: the Namespace and the operator give it (resource → namespace → flag).
    expect(app.deletionPolicy).toBeUndefined();
    expect(app.ports).toEqual([{ port: 80, protocol: "http80_load_balancer" }]);
    const order = serverOrderSpecSchema.parse({
      csp: "native",
      region: "eu-central",
      instanceType: "native.small",
    });
    expect(order).toMatchObject({ count: 1, approved: false });
    const project = projectSchema.parse({
      apiVersion: "berth.dev/v1alpha1",
      kind: "Project",
      metadata: { name: "p" },
    });
    expect(project.spec).toEqual({ suspend: false });
  });

  it("refuse what the CRD's CEL rules refuse, on the field the rule names", () => {
    const cases: [unknown, string][] = [
      [{ projectRef: { name: "demo" } }, ": exactly one of spec.image or spec.source must be set"],
      [{ image: "nginx" }, ": exactly one of spec.projectRef or spec.projectId must be set"],
      [
        { ...appSpec, instances: { min: 3, max: 2 } },
        "instances: spec.instances.min must not be greater than spec.instances.max",
      ],
      [
        { ...appSpec, env: [{ name: "1X", value: "v" }] },
        "env.0.name: env var names must start with a letter or underscore",
      ],
      [
        { ...appSpec, env: [{ name: "X" }] },
        "env.0: each env entry must set exactly one of value or valueFrom",
      ],
      [{ ...appSpec, ports: [{ port: 80 }, { port: 80 }] }, "ports: each port may appear only once"],
      [
        { ...appSpec, gridPriorities: [{ priority: 1 }] },
        "gridPriorities.0: each gridPriorities entry must set exactly one",
      ],
    ];
    for (const [spec, expected] of cases) {
      const found = problems(appSpecSchema.safeParse(spec));
      expect(
        found.some((p) => p.startsWith(expected)),
        `${expected}\n got: ${found.join("\n")}`,
      ).toBe(true);
    }
    const order = { csp: "native", region: "eu-central", instanceType: "native.small" };
    expect(problems(serverOrderSpecSchema.safeParse({ ...order, approved: true }))).toEqual([
      "maxHourlyCost: spec.maxHourlyCost is required when spec.approved is true, so a real order has a spending cap",
    ]);
    expect(problems(serverOrderSpecSchema.safeParse({ ...order, maxHourlyCost: "1,50" }))).toEqual([
      'maxHourlyCost: spec.maxHourlyCost must be a decimal number written as a string, e.g. "2.50"',
    ]);
  });

  it("read status as the operator writes it, including endpoints not yet wired", () => {
    const app = appSchema.parse({
      apiVersion: "berth.dev/v1alpha1",
      kind: "App",
      metadata: { name: "a", generation: 2, uid: "u" },
      spec: appSpec,
      status: {
        observedGeneration: 2,
        appId: "0123456789abcdef01234567",
        endpoints: [{ port: 80, protocol: "http80_load_balancer", address: null }],
        nodes: { ready: 0, total: 1 },
      },
    });
    expect(app.status?.endpoints?.[0]?.address).toBeNull();
  });
});
