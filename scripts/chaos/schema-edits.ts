import { z } from "zod";
import { appSpecSchema } from "../../src/api/app.ts";
import { gridSpecSchema } from "../../src/api/grid.ts";
import { projectSpecSchema } from "../../src/api/project.ts";
import { serverOrderSpecSchema } from "../../src/api/server-order.ts";
import type { Kind } from "./cluster.ts";
import { type PlannedUpdate, serviceName } from "./plan.ts";
import type { Random } from "./random.ts";

// The load's spec edits, drawn from the kinds' zod schemas (src/api): every field of a spec is
// edited unless it is listed in `fixed` with the reason, so a field added to a kind joins the load
// by itself. A few fields get values the service understands (`valued`: hardware the simulator
// prices, volumes it mounts); the rest get a value drawn from their schema (type, bounds, enum),
// checked against the whole spec schema (its CEL rules included) before it is sent. An edit of a
// field the checker reads from the plan or whose drawn value the service may refuse is set back
// `setBackAfter` seconds later: the resource must end Ready, converged to its last spec.

export const specSchemas: Record<Kind, z.ZodType> = {
  Project: projectSpecSchema,
  App: appSpecSchema,
  Grid: gridSpecSchema,
  ServerOrder: serverOrderSpecSchema,
};

/** Fields never edited by the drawn load, with the reason (each is moved by a planner of its own or fixed after create). */
export const fixed: Record<Kind, Record<string, string>> = {
  Project: {
    projectId: "adopts by ID: immutable after create",
    credentialsRef: "the credential faults move the Secrets",
    deletionPolicy: "the checker reads the planned deletionPolicy (restores flip it)",
  },
  App: {
    projectRef: "the App moves plan it (planMoves)",
    projectId: "names an existing project: the adoptions plan it",
    appId: "adopts by ID: immutable after create",
    source: "exactly one of image and source: the image edits keep the app running",
    credentialsRef: "the credential faults move the Secrets",
    deletionPolicy: "the checker reads the planned deletionPolicy (restores flip it)",
  },
  Grid: {
    gridId: "adopts by ID: immutable after create",
    credentialsRef: "the credential faults move the Secrets",
    deletionPolicy: "the checker reads the planned deletionPolicy (restores flip it)",
  },
  ServerOrder: {
    gridRefs: "the day-2 planner switches grids and sets them back",
    gridIds: "names grids at the service: immutable after the order",
    csp: "the checker attributes orders to ServerOrders by csp/region/zone/instanceType",
    region: "the checker attributes orders to ServerOrders by csp/region/zone/instanceType",
    zone: "the checker attributes orders to ServerOrders by csp/region/zone/instanceType",
    instanceType: "the checker attributes orders to ServerOrders by csp/region/zone/instanceType",
    count: "the day-2 planner grows and shrinks it (servers-equal-count follows it)",
    approved: "the day-2 planner withdraws and gives approval (order-only-when-approved follows it)",
    orderId: "adopts by ID: immutable after create (the order adoptions plan it)",
    maxHourlyCost: "order-within-maxHourlyCost checks the planned maximum",
    credentialsRef: "the credential faults move the Secrets",
    deletionPolicy: "the checker reads the planned deletionPolicy (restores flip it)",
  },
};

/** Values the service understands, for fields whose schema passes them through or says too little. */
type Valuer = (random: Random, n: number, where: Where) => unknown;

/** The resource an edit is for: display names follow the service names the checker attributes objects by. */
export interface Where {
  namespace: string;
  name: string;
}

const displayName: Valuer = (_random, n, where) => serviceName(where.namespace, where.name, n + 2);

const valued: Partial<Record<Kind, Record<string, Valuer>>> = {
  Project: { displayName },
  Grid: { displayName },
  App: {
    displayName,
    image: (_random, n) => `nginx:1.27.${n + 1}`,
    ports: (_random, n) => [
      { port: 80, protocol: "http80_load_balancer" },
      { port: 8080 + n, protocol: "http80_load_balancer" },
    ],
    instances: (random) => ({ min: 1, max: random.int(1, 4) }),
    // The simulator prices a node from cpu, memoryMb and gpu (a GPU is 0.50/h).
    hardware: (random) =>
      random.chance(0.5)
        ? { gpu: random.int(1, 4) }
        : { cpu: random.pick([0.5, 1, 2, 4]), memoryMb: random.pick([512, 1024, 4096]) },
    volumes: (random, n) =>
      Array.from({ length: random.int(1, 2) }, (_, i) => ({
        name: `data-${n}-${i}`,
        mountPath: `/data/${i}`,
        sizeGb: random.pick([1, 10, 100, 500]),
      })),
  },
};

/**
 * Fields whose edit lasts (the checker follows the spec there, and the service takes the value);
 * every other drawn edit is set back: the drawn value may be one the service refuses.
 */
const lasting: Partial<Record<Kind, readonly string[]>> = {
  Project: ["displayName"],
  App: ["displayName", "image", "ports", "instances", "hardware", "volumes", "stopped"],
  Grid: ["displayName", "description"],
  ServerOrder: ["autoReplace"],
};

export interface SpecEdit {
  field: string;
  /** The merge patch: the field's new value. */
  patch: Record<string, unknown>;
  /** The merge patch that sets it back, when the edit does not last. */
  setBack: Record<string, unknown> | undefined;
  /** What the load counts it as: "App hardware", "Grid managementPolicies". */
  what: string;
}

/** The spec fields the drawn load edits for a kind: every field of its schema not in `fixed`. */
export function editableFields(kind: Kind, schema: z.ZodType = specSchemas[kind]): string[] {
  return Object.keys(objectShape(schema)).filter((field) => fixed[kind][field] === undefined);
}

/**
 * One edit of `spec`, drawn from the kind's schema: a field and a value the schema accepts (with
 * the rest of the spec), or undefined when no field got one in a few tries. `n` numbers the edit.
 */
export function drawEdit(
  random: Random,
  kind: Kind,
  where: Where,
  spec: Record<string, unknown>,
  n: number,
  schema: z.ZodType = specSchemas[kind],
  fields: readonly string[] = editableFields(kind, schema),
): SpecEdit | undefined {
  const shape = objectShape(schema);
  for (let attempt = 0; attempt < 8; attempt++) {
    const field = random.pick(fields);
    const fieldSchema = shape[field];
    if (fieldSchema === undefined) continue;
    const value = valued[kind]?.[field]?.(random, n, where) ?? drawValue(random, fieldSchema, 0);
    if (value === undefined || sameValue(value, spec[field])) continue;
    if (!schema.safeParse({ ...spec, [field]: value }).success) continue;
    const lasts = lasting[kind]?.includes(field) === true;
    return {
      field,
      patch: { [field]: value },
      // A merge patch removes a field with null.
      setBack: lasts ? undefined : { [field]: spec[field] ?? null },
      what: `${kind} ${field}`,
    };
  }
  return undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of an object schema (through refinements and metadata, which zod keeps on the object). */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  throw new TypeError("a spec schema must be an object schema");
}

/** A value of `schema` drawn from its type and bounds; undefined for a type it cannot value. */
export function drawValue(random: Random, schema: z.ZodType, depth: number): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable)
    return drawValue(random, schema.unwrap() as z.ZodType, depth);
  if (schema instanceof z.ZodDefault) return drawValue(random, schema.def.innerType as z.ZodType, depth);
  if (schema instanceof z.ZodBoolean) return random.chance(0.5);
  if (schema instanceof z.ZodEnum) return random.pick(schema.options as readonly unknown[]);
  if (schema instanceof z.ZodLiteral) return random.pick([...schema.values]);
  if (schema instanceof z.ZodNumber) return drawNumber(random, schema);
  if (schema instanceof z.ZodString) return drawString(random, schema);
  if (schema instanceof z.ZodUnion) return drawValue(random, random.pick(schema.options) as z.ZodType, depth);
  if (depth > 4) return undefined;
  if (schema instanceof z.ZodArray) return drawArray(random, schema, depth);
  if (schema instanceof z.ZodObject) return drawObject(random, schema, depth);
  if (schema instanceof z.ZodRecord)
    return Object.fromEntries(
      Array.from({ length: random.int(1, 2) }, (_, i) => [`chaos${i}`, random.pick([1, "on", true])]),
    );
  return undefined;
}

function drawNumber(random: Random, schema: z.ZodNumber): number {
  const min = Number.isFinite(schema.minValue) ? Number(schema.minValue) : 0;
  const max = Number.isFinite(schema.maxValue) ? Number(schema.maxValue) : min + 10;
  // Small values: a count or a port near its lower bound is what a person types.
  const top = Math.min(max, min + 10);
  return schema.isInt ? random.int(min, top) : Math.round(random.between(min, top) * 100) / 100;
}

function drawString(random: Random, schema: z.ZodString): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 32;
  const text = `chaos-${random.int(0, 9999)}`;
  return text.padEnd(min, "x").slice(0, Math.max(min, Math.min(max, text.length)));
}

function drawArray(random: Random, schema: z.ZodArray, depth: number): unknown[] | undefined {
  const lengths = (schema.def.checks ?? []).map((c) => c._zod.def as { check: string; minimum?: number });
  const min = lengths.find((c) => c.check === "min_length")?.minimum ?? 0;
  const items: unknown[] = [];
  for (let i = 0; i < Math.max(min, random.int(1, 2)); i++) {
    const item = drawValue(random, schema.element as z.ZodType, depth + 1);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return items;
}

function drawObject(random: Random, schema: z.ZodObject, depth: number): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const optional = field instanceof z.ZodOptional || field instanceof z.ZodDefault;
    if (optional && random.chance(0.5)) continue;
    const value = drawValue(random, field, depth + 1);
    if (value === undefined && !optional) return undefined;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Drawn edits of `resource` at `times` (seconds, ascending) before `to`; an edit that does not
 * last is set back 3-15 s later, still before `to` and the next edit (or not made). Each edit sees
 * the spec as the ones before left it.
 */
export function planDrawnEdits(
  random: Random,
  resource: { kind: Kind; namespace: string; name: string; spec: Record<string, unknown> },
  times: readonly number[],
  to: number,
): PlannedUpdate[] {
  const updates: PlannedUpdate[] = [];
  const spec = { ...resource.spec };
  times.forEach((at, n) => {
    const edit = drawEdit(random, resource.kind, resource, spec, n);
    const next = Math.min(times[n + 1] ?? to, to);
    if (edit === undefined || at >= to - 0.5 || at <= (updates.at(-1)?.at ?? -1)) return;
    const undoAt = at + random.between(3, 15);
    if (edit.setBack !== undefined && undoAt >= next - 0.5) return;
    updates.push({ at, what: edit.what, type: "patch", patch: edit.patch });
    if (edit.setBack === undefined) Object.assign(spec, edit.patch);
    else updates.push({ at: undoAt, what: `${edit.what} set back`, type: "patch", patch: edit.setBack });
  });
  return updates;
}

/** `count` moments in (from, to), at least two seconds apart, ascending. */
export function editTimes(random: Random, count: number, [from, to]: [number, number]): number[] {
  const times: number[] = [];
  let at = from;
  for (let n = 0; n < count; n++) {
    at = random.between(at + 2, Math.max(at + 2, to));
    if (at >= to - 0.5) break;
    times.push(at);
  }
  return times;
}
