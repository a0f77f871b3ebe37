import { describe, expect, it } from "vitest";
import { z } from "zod";
import { getCondition } from "../../api/conditions.ts";
import { type Intent, intentSchema } from "../../api/intents.ts";
import { finalizer } from "../../api/meta.ts";
import { canonicalJson, HostingApiError, type HostingClient, type Me } from "../../hosting/index.ts";
import type { KubeClient, KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Connection } from "../service/hosting-access.ts";
import { noNamespaceDefaults } from "../service/management.ts";
import { converge } from "./converge.ts";
import { type IntentCall, intentCall, type Settlement } from "./intents.ts";
import type { BaseKnowledge, BasePlan, Failed, Kind, ObjectFact } from "./kind.ts";
import { allowanceOf } from "./policies.ts";

// A toy kind: it wants `want` things made, one `make` call each; the skeleton adds the finalizer first.
// `spec.spend` asks for one call that spends (`spend`, with an intent); deleting, it releases.
type Action = { type: "make"; n: number } | { type: "spend"; n: number; intent: IntentCall };
type Fact = { type: "made"; n: number } | { type: "spent"; n: number };
interface Knowledge extends BaseKnowledge {
  made: number[];
  spent: number[];
  failures: string[];
}
const schema = z.object({
  metadata: z.object({
    uid: z.string().optional(),
    generation: z.number().optional(),
    deletionTimestamp: z.string().optional(),
    finalizers: z.array(z.string()).optional(),
  }),
  spec: z.object({
    want: z.number(),
    spend: z.number().optional(),
    suspend: z.boolean().optional(),
    deletionPolicy: z.string().optional(),
    outputs: z.object({ configMapName: z.string() }).optional(),
  }),
  status: z
    .object({
      marked: z.boolean().optional(),
      spentId: z.string().optional(),
      intents: z.array(intentSchema).optional(),
      outputs: z.object({ configMapName: z.string() }).optional(),
    })
    .optional(),
});
type Toy = z.infer<typeof schema>;
const toyType = { group: "test", version: "v1", plural: "toys", kind: "Toy" };

interface Behaviour {
  failOn?: number;
  perRound?: number;
  rounds?: number;
  /** The error the `spend` call fails with. */
  spendError?: () => Error;
  /** How a Pending intent ended (the toy's lookup). */
  settle?: (intent: Intent) => Settlement<Fact>;
}

function toyKind(behaviour: Behaviour) {
  const performed: Action[] = [];
  /** status.intents of the object each `spend` was performed on. */
  const seenIntents: (Intent[] | undefined)[] = [];
  const settled: Intent[] = [];
  const kind: Kind<Toy, object, Knowledge, Action, Fact, BasePlan<Action> & { made: number[] }> = {
    type: toyType,
    schema,
    ...(behaviour.rounds === undefined ? {} : { rounds: behaviour.rounds }),
    observe: async () => {
      throw new Error("not used");
    },
    planCleanup: (_resource, knowledge) => ({
      actions: [],
      status: {},
      stalled: false,
      made: knowledge.made,
      release: {},
    }),
    report: (_resource, knowledge) => ({ actions: [], status: {}, stalled: false, made: knowledge.made }),
    plan(resource, knowledge) {
      const missing = Array.from({ length: resource.spec.want }, (_, i) => i).filter(
        (n) => !knowledge.made.includes(n),
      );
      const actions: Action[] = [];
      actions.push(...missing.slice(0, behaviour.perRound ?? 1).map((n) => ({ type: "make" as const, n })));
      const spend = resource.spec.spend;
      if (spend !== undefined && !knowledge.spent.includes(spend))
        actions.push({ type: "spend", n: spend, intent: intentCall(resource, "spend", { n: spend }) });
      return { actions, status: {}, stalled: false, made: knowledge.made };
    },
    async *perform(action, context): AsyncGenerator<Fact | ObjectFact> {
      performed.push(action);
      if (action.type === "spend") {
        seenIntents.push((context.object.status as { intents?: Intent[] } | undefined)?.intents);
        const error = behaviour.spendError?.();
        if (error !== undefined) throw error;
        yield { type: "spent", n: action.n };
        yield { type: "answered", requestId: `req-spend-${action.n}` };
        yield { type: "recorded", status: { spentId: `s-${action.n}` } };
        return;
      }
      if (action.n === behaviour.failOn) {
        yield { type: "answered", requestId: "req-before-failure" };
        throw new HostingApiError({
          code: "internal",
          kind: "uncertain",
          operation: "make",
          message: "boom",
          status: 500,
          requestId: "req-failed",
        });
      }
      yield { type: "made", n: action.n };
      yield { type: "answered", requestId: `req-${action.n}` };
    },
    learn: (knowledge, fact: Fact | Failed<Action>) =>
      fact.type === "made"
        ? { ...knowledge, made: [...knowledge.made, fact.n] }
        : fact.type === "spent"
          ? { ...knowledge, spent: [...knowledge.spent, fact.n] }
          : { ...knowledge, failures: [...knowledge.failures, fact.failure.reason] },
    doing: { make: "doing make", spend: "doing spend" },
    changes: { make: "create", spend: "update" },
    remember: () => ({}),
    outputs: () => ({}),
    ...(behaviour.settle === undefined
      ? {}
      : {
          settle: (intent: Intent) => {
            settled.push(intent);
            return behaviour.settle?.(intent) as Settlement<Fact>;
          },
        }),
  };
  return { kind, performed, seenIntents, settled };
}

/** The object after a JSON patch of its finalizers (the only JSON patches the skeleton sends). */
function patchFinalizers(object: KubeObject, body: unknown, log: string[]): KubeObject {
  if (!Array.isArray(body)) return patchAnnotations(object, body, log);
  let finalizers = [...(object.metadata.finalizers ?? [])];
  for (const op of body as { op: string; path: string; value?: unknown }[]) {
    if (op.op === "add") {
      finalizers = op.path.endsWith("/-") ? [...finalizers, op.value as string] : [...(op.value as string[])];
      log.push("add finalizer");
    }
    if (op.op === "remove") {
      finalizers = finalizers.filter((_, i) => `/metadata/finalizers/${i}` !== op.path);
      log.push("remove finalizer");
    }
  }
  const resourceVersion = String(Number(object.metadata.resourceVersion ?? "1") + 1);
  return { ...object, metadata: { ...object.metadata, finalizers, resourceVersion } };
}

/** A merge patch of annotations (null removes one). */
function patchAnnotations(object: KubeObject, body: unknown, log: string[]): KubeObject {
  const wanted = (body as { metadata: { annotations: Record<string, string | null> } }).metadata.annotations;
  const annotations: Record<string, string> = { ...object.metadata.annotations };
  for (const [key, value] of Object.entries(wanted)) {
    if (value === null) delete annotations[key];
    else annotations[key] = value;
  }
  log.push(`annotate ${Object.keys(wanted).join(",")}`);
  const resourceVersion = String(Number(object.metadata.resourceVersion ?? "1") + 1);
  return { ...object, metadata: { ...object.metadata, annotations, resourceVersion } };
}

function start(want: number, metadata: Record<string, unknown> = {}) {
  const events: string[] = [];
  const log: string[] = [];
  let stored: KubeObject = {
    apiVersion: "test/v1",
    kind: "Toy",
    metadata: { name: "t", ...metadata },
    spec: { want },
  };
  const kube = {
    async call(method: string, path: string, request: { body?: unknown } = {}) {
      if (method !== "PATCH" || path.endsWith("/status")) throw new Error(`unexpected ${method} ${path}`);
      stored = patchFinalizers(stored, request.body, log);
      return structuredClone(stored);
    },
  };
  const deps = {
    kube: kube as unknown as KubeClient,
    recorder: { record: (_: KubeObject, type: string, reason: string) => events.push(`${type} ${reason}`) },
    hosting: { forgetIdentity: () => undefined },
  } as unknown as ControllerDeps;
  const object = structuredClone(stored);
  const knowledge: Knowledge = {
    problem: undefined,
    requestId: undefined,
    made: [],
    spent: [],
    failures: [],
  };
  return {
    events,
    log,
    start: {
      deps,
      object,
      resource: schema.parse(object),
      knowledge,
      connection: undefined,
      now: new Date(0),
      allowance: allowanceOf(schema.parse(object), noNamespaceDefaults),
      writes: { kube: deps.kube, recorder: deps.recorder, kind: { type: toyType, schema } },
    },
  };
}

describe("converge: plan → perform → learn → plan", () => {
  it("plans the status on what the calls taught, once, after one round", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const { start: begin, log } = start(2);
    const done = await converge(kind, begin);
    expect(log).toEqual(["add finalizer"]);
    expect(performed.map((a) => a.type)).toEqual(["make", "make"]);
    expect(done.plan.made).toEqual([0, 1]);
    expect(done.plan.actions).toEqual([]);
    expect(done.knowledge.requestId).toBe("req-1");
    // Re-parsed from the written object: the finalizer is not added again.
    expect(done.object?.metadata.finalizers).toEqual([finalizer]);
    expect(done.resource.metadata.finalizers).toEqual([finalizer]);
  });

  it("runs at most `rounds` rounds, leaving the rest planned", async () => {
    const { kind, performed } = toyKind({ perRound: 1, rounds: 2 });
    const { start: begin } = start(3);
    const done = await converge(kind, begin);
    expect(performed.map((a) => (a.type === "make" ? a.n : a.type))).toEqual([0, 1]);
    expect(done.plan.actions).toEqual([{ type: "make", n: 2 }]);
  });

  it("stops at a failed call: the facts before it are kept, the failure is learned and reported once", async () => {
    const { kind, performed } = toyKind({ perRound: 5, failOn: 1 });
    const { start: begin, events } = start(3);
    const done = await converge(kind, begin);
    expect(performed.map((a) => (a.type === "make" ? a.n : a.type))).toEqual([0, 1]);
    expect(done.knowledge.made).toEqual([0]);
    expect(done.knowledge.failures).toEqual(["HostingError"]);
    expect(done.failure).toMatchObject({ uncertain: true, requestId: "req-failed", stalled: false });
    expect(done.failure?.message).toContain("doing make failed");
    expect(done.knowledge.requestId).toBe("req-failed");
    expect(done.plan.actions).toEqual([
      { type: "make", n: 1 },
      { type: "make", n: 2 },
    ]);
    expect(events).toEqual(["Warning HostingError"]);
  });

  it("returns what was learned with an error that is not the service's, for the skeleton to keep", async () => {
    const { kind } = toyKind({ perRound: 5 });
    const broken: typeof kind = {
      ...kind,
      async *perform(action, context) {
        if (action.type === "make" && action.n === 1) throw new Error("conflict writing the object");
        yield* kind.perform(action, context);
      },
    };
    const done = await converge(broken, start(2).start);
    expect(done.interrupted?.error).toBeInstanceOf(Error);
    expect(done.knowledge.made).toEqual([0]);
  });

  it("going away, performs the cleanup's actions, then releases the finalizer and stops", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const cleaning: typeof kind = {
      ...kind,
      planCleanup: (_resource, knowledge) => ({
        actions: knowledge.made.includes(9) ? [] : [{ type: "make", n: 9 }],
        status: {},
        stalled: false,
        made: knowledge.made,
        release: {},
      }),
    };
    const deleting = { deletionTimestamp: "2030-01-01T00:00:00Z", finalizers: [finalizer] };
    const { start: begin, log } = start(2, deleting);
    const done = await converge(cleaning, begin);
    expect(performed).toEqual([{ type: "make", n: 9 }]);
    expect(log).toEqual(["remove finalizer"]);
    expect(done.object).toBeUndefined();
  });

  it("going away without berth's finalizer, does nothing", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const { start: begin, log } = start(2, { deletionTimestamp: "2030-01-01T00:00:00Z" });
    const done = await converge(kind, begin);
    expect(performed).toEqual([]);
    expect(log).toEqual([]);
    expect(done.object).toBeDefined();
  });

  it("suspended, calls nothing and adds no finalizer", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const { start: begin, log } = start(2);
    const suspended = {
      ...begin,
      resource: { ...begin.resource, spec: { ...begin.resource.spec, suspend: true } },
    };
    await converge(kind, suspended);
    expect(performed).toEqual([]);
    expect(log).toEqual([]);
  });
});

// The intent protocol: a spending call is recorded in status before it is sent, and settled by a
// lookup on its own input when its outcome was lost.

const now = new Date("2030-01-01T00:00:00Z");
const me = { user: { id: "u1", email: "u@example.test" } } as unknown as Me;
const connection: Connection = { client: { credentialId: "key-abc" } as unknown as HostingClient, me };

/** A Kubernetes fake for status writes (merge patches), logging each; `perform` logs its action after. */
function intentStart(options: {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}) {
  const log: string[] = [];
  const events: string[] = [];
  let stored: KubeObject = {
    apiVersion: "test/v1",
    kind: "Toy",
    metadata: {
      name: "t",
      namespace: "ns",
      uid: "uid-t",
      resourceVersion: "1",
      finalizers: [finalizer],
      ...options.metadata,
    },
    spec: { want: 0, spend: 1, ...options.spec },
    status: { marked: true, ...options.status },
  };
  const patches: { intents?: Intent[] }[] = [];
  const kube = {
    async call(method: string, path: string, request: { body?: unknown } = {}) {
      if (method !== "PATCH") throw new Error(`unexpected ${method} ${path}`);
      if (!path.endsWith("/status")) {
        stored = patchFinalizers(stored, request.body, log);
        return structuredClone(stored);
      }
      const { status } = request.body as { status: Record<string, unknown> };
      patches.push(status as { intents?: Intent[] });
      log.push("patch status");
      stored = {
        ...stored,
        metadata: {
          ...stored.metadata,
          resourceVersion: String(Number(stored.metadata.resourceVersion) + 1),
        },
        status: { ...(stored.status as Record<string, unknown>), ...status },
      };
      return structuredClone(stored);
    },
  };
  const deps = {
    kube: kube as unknown as KubeClient,
    recorder: {
      record: (_: KubeObject, type: string, reason: string) => events.push(`${type} ${reason}`),
    },
    hosting: { forgetIdentity: () => undefined },
  } as unknown as ControllerDeps;
  const writes: KubeObject[] = [];
  const knowledge: Knowledge = {
    problem: undefined,
    requestId: undefined,
    made: [],
    spent: [],
    failures: [],
  };
  return {
    log,
    events,
    patches,
    writes,
    start: {
      deps,
      object: structuredClone(stored),
      resource: schema.parse(stored),
      knowledge,
      connection,
      now,
      allowance: allowanceOf(schema.parse(stored), noNamespaceDefaults),
      writes: {
        kube: deps.kube,
        recorder: deps.recorder,
        kind: { type: toyType, schema },
        onWrite: (_: KubeObject, written: KubeObject) => writes.push(written),
      },
    },
  };
}

/** The intent a plan makes for `spend n` on the toy. */
const spendCall = (n: number) => intentCall({ metadata: { uid: "uid-t" } }, "spend", { n });

/** A Pending record of `spend n`, as an earlier reconcile wrote it. */
function pending(n: number, owner = { userId: "u1", credential: "key-abc" }): Intent {
  const call = spendCall(n);
  return {
    operation: "spend",
    key: call.key,
    input: canonicalJson(call.input),
    attempt: call.attempt,
    owner,
    since: "2029-12-31T23:59:00.000Z",
    state: "Pending",
  };
}

const terminal = () =>
  new HostingApiError({
    code: "insufficient_balance",
    kind: "terminal",
    operation: "spend",
    message: "no credit",
    status: 402,
    requestId: "req-refused",
  });
const uncertain = () =>
  new HostingApiError({
    code: "internal",
    kind: "uncertain",
    operation: "spend",
    message: "boom",
    status: 500,
    requestId: "req-lost",
  });

describe("converge: intents", () => {
  it("records a Pending intent in status before perform runs, naming the call, its input, key and owner", async () => {
    const { kind, performed, seenIntents } = toyKind({});
    const { start: begin, patches, log, writes } = intentStart({});
    const wrapped: typeof kind = {
      ...kind,
      async *perform(action, context) {
        log.push(`perform ${action.type}`);
        yield* kind.perform(action, context);
      },
    };
    await converge(wrapped, begin);
    const record: Intent = {
      operation: "spend",
      key: spendCall(1).key,
      input: canonicalJson({ n: 1 }),
      attempt: 1,
      owner: { userId: "u1", credential: "key-abc" },
      since: now.toISOString(),
      state: "Pending",
    };
    // Kept where backups keep it first, then in status, then the call.
    expect(log).toEqual(["annotate berth.dev/owned", "patch status", "perform spend"]);
    expect(patches).toEqual([{ intents: [record] }]);
    expect(JSON.parse(writes[0]?.metadata.annotations?.["berth.dev/owned"] ?? "{}")).toEqual({
      of: "ns/t",
      intents: [record],
    });
    expect(spendCall(1).key).toMatch(/^spend\.uid-t\./);
    // perform acts on the object as written: the intent is in its status.
    expect(seenIntents).toEqual([[record]]);
    expect(performed.map((a) => a.type)).toEqual(["spend"]);
    // Both writes are the skeleton's own: their watch events are no news.
    expect(writes).toHaveLength(2);
  });

  it("removes the intent once the call answered, keeping what perform recorded for the final write", async () => {
    const { kind } = toyKind({});
    const { start: begin, patches } = intentStart({});
    const done = await converge(kind, begin);
    expect(patches).toHaveLength(1);
    expect(done.plan.status.intents ?? []).toEqual([]);
    expect(done.resource.status).not.toHaveProperty("intents");
    expect(done.resource.status?.spentId).toBe("s-1");
    expect(done.knowledge.spent).toEqual([1]);
    expect(done.knowledge.requestId).toBe("req-spend-1");
    expect(done.failure).toBeUndefined();
    expect(done.plan.actions).toEqual([]);
  });

  it("plans on status as stored and as observe read it: no intents, no field (a status of a release before intents)", async () => {
    const { kind } = toyKind({});
    const seen: (Record<string, unknown> | undefined)[] = [];
    const watched: typeof kind = {
      ...kind,
      plan(resource, knowledge, at) {
        seen.push(resource.status);
        return kind.plan(resource, knowledge, at);
      },
    };
    await converge(watched, intentStart({ spec: { spend: undefined } }).start);
    await converge(watched, intentStart({}).start);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const status of seen) expect(status).not.toHaveProperty("intents");
  });

  it("ends the intent Refused after the service's definite refusal: the next attempt gets a new key", async () => {
    const { kind } = toyKind({ spendError: terminal });
    const { start: begin, events } = intentStart({});
    const done = await converge(kind, begin);
    expect(done.failure).toMatchObject({ uncertain: false, requestId: "req-refused" });
    expect(done.plan.status.intents ?? []).toEqual([
      expect.objectContaining({
        operation: "spend",
        key: spendCall(1).key,
        attempt: 1,
        state: "Refused",
        message: expect.stringContaining("doing spend failed"),
      }),
    ]);
    const next = done.plan.actions.find((a) => a.type === "spend");
    expect(next?.type === "spend" && next.intent.attempt).toBe(2);
    expect(next?.type === "spend" && next.intent.key).not.toBe(spendCall(1).key);
    expect(events).toEqual(["Warning InsufficientBalance"]);
  });

  it("keeps the intent Pending when the outcome is unknown: the next reconcile settles it first", async () => {
    const { kind } = toyKind({ spendError: uncertain });
    const { start: begin } = intentStart({});
    const done = await converge(kind, begin);
    expect(done.failure).toMatchObject({ uncertain: true });
    expect(done.plan.status.intents ?? []).toEqual([
      expect.objectContaining({ operation: "spend", key: spendCall(1).key, attempt: 1, state: "Pending" }),
    ]);
    expect(done.knowledge.spent).toEqual([]);
  });

  it("takes the record back when the call never left (no room in the budget): nothing to settle later", async () => {
    const deferred = () => Object.assign(new Error("no room"), { code: "deferred", deferMs: 1000 });
    const { kind } = toyKind({ spendError: deferred });
    const { start: begin, writes } = intentStart({});
    const done = await converge(kind, begin);
    expect(done.interrupted?.error).toMatchObject({ code: "deferred" });
    expect(done.plan.status.intents ?? []).toEqual([]);
    expect((writes.at(-1)?.status as { intents?: unknown } | undefined)?.intents).toEqual([]);
  });

  it("settles a Pending intent that acted before planning: its facts are learned, it goes, nothing is sent", async () => {
    const { kind, performed, settled } = toyKind({
      settle: () => ({
        outcome: "acted",
        facts: [
          { type: "spent", n: 1 },
          { type: "recorded", status: { spentId: "s-found" } },
        ],
        note: "found s-found",
      }),
    });
    const { start: begin, patches, events } = intentStart({ status: { intents: [pending(1)] } });
    const done = await converge(kind, begin);
    expect(settled).toEqual([pending(1)]);
    expect(performed).toEqual([]);
    expect(patches).toEqual([]);
    expect(done.knowledge.spent).toEqual([1]);
    expect(done.resource.status?.spentId).toBe("s-found");
    expect(done.plan.status.intents ?? []).toEqual([]);
    expect(done.plan.actions).toEqual([]);
    expect(events).toEqual(["Normal IntentSettled"]);
  });

  it("ends a Pending intent that did not act NotFound; the call is then sent again under the same key", async () => {
    const notActed = { settle: () => ({ outcome: "notActed" as const, note: "nothing found" }) };
    // Nothing asks for it any more: it stays, NotFound, for its attempt number.
    const idle = toyKind(notActed);
    const quiet = await converge(
      idle.kind,
      intentStart({ spec: { spend: undefined }, status: { intents: [pending(1)] } }).start,
    );
    expect(quiet.plan.status.intents ?? []).toEqual([
      { ...pending(1), state: "NotFound", message: "nothing found" },
    ]);
    expect(idle.performed).toEqual([]);
    // Still asked for: sent again, attempt 1 and its key (the service replays it should it have acted).
    const again = toyKind(notActed);
    const { start: begin, patches } = intentStart({ status: { intents: [pending(1)] } });
    const done = await converge(again.kind, begin);
    expect(again.performed.map((a) => a.type)).toEqual(["spend"]);
    expect(patches[0]?.intents).toEqual([
      expect.objectContaining({ key: pending(1).key, attempt: 1, state: "Pending" }),
    ]);
    expect(done.plan.status.intents ?? []).toEqual([]);
  });

  it("while a Pending intent is being looked up, does nothing else and says it is settling", async () => {
    const { kind, performed } = toyKind({ settle: () => ({ outcome: "looking", note: "looking it up" }) });
    const { start: begin, patches } = intentStart({ spec: { want: 2 }, status: { intents: [pending(1)] } });
    const done = await converge(kind, begin);
    expect(performed).toEqual([]);
    expect(patches).toEqual([]);
    expect(done.plan.actions).toEqual([]);
    expect(done.plan.stalled).toBe(false);
    expect(done.plan.status.intents ?? []).toEqual([pending(1)]);
    const reconciling = getCondition(done.plan.status.conditions, "Reconciling");
    expect(reconciling).toMatchObject({ status: "True", reason: "Progressing" });
    expect(reconciling?.message).toContain("settling spend: looking it up");
    expect(getCondition(done.plan.status.conditions, "Stalled")?.status).not.toBe("True");
  });

  it("when nothing tells what a Pending intent did, is Stalled IntentUnsettled and does nothing else", async () => {
    const { kind, performed } = toyKind({
      settle: () => ({ outcome: "unsettled", message: "two results could be it" }),
    });
    const { start: begin, patches } = intentStart({ spec: { want: 2 }, status: { intents: [pending(1)] } });
    const done = await converge(kind, begin);
    expect(performed).toEqual([]);
    expect(patches).toEqual([]);
    expect(done.plan.actions).toEqual([]);
    expect(done.plan.stalled).toBe(true);
    expect(done.plan.status.intents ?? []).toEqual([pending(1)]);
    const stalled = getCondition(done.plan.status.conditions, "Stalled");
    expect(stalled).toMatchObject({ status: "True", reason: "IntentUnsettled" });
    // The message names the call and its key, for a person to check at the service.
    expect(stalled?.message).toContain(pending(1).key);
    expect(stalled?.message).toContain("two results could be it");
  });

  it("a kind without settle can't tell what its Pending intent did: Stalled IntentUnsettled", async () => {
    const { kind, performed } = toyKind({});
    const done = await converge(kind, intentStart({ status: { intents: [pending(1)] } }).start);
    expect(performed).toEqual([]);
    expect(getCondition(done.plan.status.conditions, "Stalled")?.reason).toBe("IntentUnsettled");
  });

  it("a Pending intent sent with another user's key is Stalled CredentialsChanged, without a lookup", async () => {
    const { kind, performed, settled } = toyKind({
      settle: () => ({ outcome: "notActed", note: "nothing found" }),
    });
    const other = pending(1, { userId: "u0", credential: "key-old" });
    const done = await converge(kind, intentStart({ status: { intents: [other] } }).start);
    expect(settled).toEqual([]);
    expect(performed).toEqual([]);
    expect(done.plan.status.intents ?? []).toEqual([other]);
    expect(done.plan.stalled).toBe(true);
    const stalled = getCondition(done.plan.status.conditions, "Stalled");
    expect(stalled).toMatchObject({ status: "True", reason: "CredentialsChanged" });
    expect(stalled?.message).toContain("user u0");
  });

  it("without a connection, waits to settle a Pending intent rather than acting", async () => {
    const { kind, performed, settled } = toyKind({
      settle: () => ({ outcome: "notActed", note: "nothing found" }),
    });
    const { start: begin } = intentStart({ status: { intents: [pending(1)] } });
    const done = await converge(kind, { ...begin, connection: undefined });
    expect(settled).toEqual([]);
    expect(performed).toEqual([]);
    expect(getCondition(done.plan.status.conditions, "Reconciling")?.message).toContain(
      "waiting for a connection",
    );
  });

  it("deleting with deletionPolicy Orphan, releases despite a Pending intent (nothing is spent)", async () => {
    const { kind, performed, settled } = toyKind({
      settle: () => ({ outcome: "unsettled", message: "two results could be it" }),
    });
    const {
      start: begin,
      log,
      events,
    } = intentStart({
      metadata: { deletionTimestamp: "2030-01-01T00:00:00Z" },
      spec: { deletionPolicy: "Orphan" },
      status: { intents: [pending(1)] },
    });
    const done = await converge(kind, begin);
    expect(settled).toEqual([]);
    expect(performed).toEqual([]);
    expect(log).toEqual(["remove finalizer"]);
    expect(events).toContain("Normal Orphaned");
    expect(done.object).toBeUndefined();
  });

  it("deleting with another policy, settles the Pending intent before releasing anything", async () => {
    const { kind, performed, settled } = toyKind({
      settle: () => ({ outcome: "looking", note: "looking it up" }),
    });
    const { start: begin } = intentStart({
      metadata: { deletionTimestamp: "2030-01-01T00:00:00Z" },
      spec: { deletionPolicy: "Delete" },
      status: { intents: [pending(1)] },
    });
    const done = await converge(kind, begin);
    expect(settled).toHaveLength(1);
    expect(performed).toEqual([]);
    expect(done.object).toBeDefined();
  });
});
