import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appSpecSchema } from "../../src/api/app.ts";
import { kinds } from "./cluster.ts";
import { Random } from "./random.ts";
import {
  drawEdit,
  editableFields,
  editTimes,
  fixed,
  objectShape,
  planDrawnEdits,
  specSchemas,
} from "./schema-edits.ts";

const where = { namespace: "chaos-a", name: "x-0" };
const specs = {
  Project: { displayName: "chaos-a.x-0" },
  App: { projectRef: { name: "p-0" }, image: "nginx:1.27", instances: { min: 1, max: 1 } },
  Grid: { displayName: "chaos-a.x-0" },
  ServerOrder: { csp: "c", region: "r", zone: "z", instanceType: "t", count: 1, approved: true },
};

describe("the schema-drawn edits", () => {
  it("edit every spec field of every kind except those fixed with a reason, and fix none that is gone", () => {
    for (const kind of kinds) {
      const fields = Object.keys(objectShape(specSchemas[kind]));
      const editable = editableFields(kind);
      for (const field of fields)
        expect(editable.includes(field) || fixed[kind][field] !== undefined).toBe(true);
      for (const field of Object.keys(fixed[kind])) expect(fields).toContain(field);
      expect(editable).toContain("managementPolicies");
    }
    expect(editableFields("App")).toEqual(expect.arrayContaining(["hardware", "volumes", "instances"]));
  });

  it("draw a field added to a kind's schema by itself, within its bounds", () => {
    const grown = appSpecSchema.extend({ replicasHint: z.int().min(3).max(7).optional() });
    expect(editableFields("App", grown)).toContain("replicasHint");
    const random = new Random(1);
    for (let n = 0; n < 20; n++) {
      const edit = drawEdit(random, "App", where, specs.App, n, grown, ["replicasHint"]);
      const value = edit?.patch.replicasHint;
      expect(typeof value === "number" && value >= 3 && value <= 7).toBe(true);
      expect(edit?.setBack).toEqual({ replicasHint: null });
    }
  });

  it("send only specs the kind's schema accepts, CEL rules included, and set back what may not last", () => {
    for (const kind of kinds) {
      const random = new Random(7);
      const spec = specs[kind];
      for (let n = 0; n < 200; n++) {
        const edit = drawEdit(random, kind, where, spec, n);
        if (edit === undefined) continue;
        expect(specSchemas[kind].safeParse({ ...spec, ...edit.patch }).success).toBe(true);
        if (edit.field === "managementPolicies" || edit.field === "suspend")
          expect(edit.setBack).toBeDefined();
      }
    }
  });

  it("give hardware and volumes values the simulator prices, and display names the checker attributes", () => {
    const random = new Random(3);
    const seen = new Map<string, unknown[]>();
    for (let n = 0; n < 300; n++) {
      const edit = drawEdit(random, "App", where, specs.App, n);
      if (edit !== undefined) seen.set(edit.field, [...(seen.get(edit.field) ?? []), edit.patch[edit.field]]);
    }
    const hardware = z.object({ gpu: z.int().min(1) }).or(z.object({ cpu: z.number(), memoryMb: z.int() }));
    for (const value of seen.get("hardware") ?? []) expect(hardware.safeParse(value).success).toBe(true);
    expect(seen.get("hardware")?.length).toBeGreaterThan(0);
    const volume = z.object({ name: z.string(), mountPath: z.string(), sizeGb: z.int().min(1) });
    for (const value of seen.get("volumes") ?? [])
      expect(z.array(volume).min(1).safeParse(value).success).toBe(true);
    expect(seen.get("volumes")?.length).toBeGreaterThan(0);
    for (const value of seen.get("displayName") ?? []) expect(value).toMatch(/^chaos-a\.x-0\.v\d+$/);
  });

  it("plan the same edits from the same seed, each set back before the next edit", () => {
    const plan = (seed: number) => {
      const random = new Random(seed);
      const times = editTimes(random, 3, [10, 100]);
      return planDrawnEdits(random, { kind: "App", ...where, spec: specs.App }, times, 100);
    };
    expect(plan(5)).toEqual(plan(5));
    const updates = plan(5);
    expect(updates.length).toBeGreaterThan(0);
    for (const [i, u] of updates.entries()) {
      expect(u.at).toBeLessThan(99.5);
      if (u.what.endsWith("set back")) expect(updates[i - 1]?.what).toBe(u.what.replace(/ set back$/, ""));
      if (i > 0) expect(u.at).toBeGreaterThan(updates[i - 1]?.at ?? 0);
    }
  });
});
