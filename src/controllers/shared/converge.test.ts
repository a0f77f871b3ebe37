import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HostingApiError } from "../../hosting/index.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { converge } from "./converge.ts";
import type { ControllerDeps } from "./deps.ts";
import type { BaseKnowledge, BasePlan, Failed, Kind, ObjectFact } from "./kind.ts";

// A toy kind: it wants `want` things made, one `make` call each; a `mark` writes the object first.
type Action = { type: "mark" } | { type: "make"; n: number };
type Fact = { type: "made"; n: number };
interface Knowledge extends BaseKnowledge {
  made: number[];
  failures: string[];
}
const schema = z.object({
  metadata: z.object({ uid: z.string().optional(), generation: z.number().optional() }),
  spec: z.object({ want: z.number(), outputs: z.object({ configMapName: z.string() }).optional() }),
  status: z
    .object({ marked: z.boolean().optional(), outputs: z.object({ configMapName: z.string() }).optional() })
    .optional(),
});
type Toy = z.infer<typeof schema>;

function toyKind(behaviour: { failOn?: number; perRound?: number; rounds?: number }) {
  const performed: Action[] = [];
  const kind: Kind<Toy, object, Knowledge, Action, Fact, BasePlan<Action> & { made: number[] }> = {
    type: { group: "test", version: "v1", plural: "toys", kind: "Toy" },
    schema,
    ...(behaviour.rounds === undefined ? {} : { rounds: behaviour.rounds }),
    newMemory: () => ({}),
    observe: async () => {
      throw new Error("not used");
    },
    plan(resource, knowledge) {
      const missing = Array.from({ length: resource.spec.want }, (_, i) => i).filter(
        (n) => !knowledge.made.includes(n),
      );
      const actions: Action[] = resource.status?.marked ? [] : [{ type: "mark" }];
      actions.push(...missing.slice(0, behaviour.perRound ?? 1).map((n) => ({ type: "make" as const, n })));
      return { actions, status: {}, stalled: false, made: knowledge.made };
    },
    async *perform(action, context): AsyncGenerator<Fact | ObjectFact> {
      performed.push(action);
      if (action.type === "mark") {
        yield { type: "written", object: { ...context.object, status: { marked: true } } };
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
        : { ...knowledge, failures: [...knowledge.failures, fact.failure.reason] },
    doing: (action) => `doing ${action.type}`,
    schedule: (knowledge) => ({ knowledge, dueAt: undefined }),
    remember: () => ({}),
    waiting: () => false,
    outputs: () => ({}),
  };
  return { kind, performed };
}

function start(want: number) {
  const events: string[] = [];
  const deps = {
    recorder: { record: (_: KubeObject, type: string, reason: string) => events.push(`${type} ${reason}`) },
    hosting: { forgetIdentity: () => undefined },
  } as unknown as ControllerDeps;
  const object: KubeObject = { apiVersion: "test/v1", kind: "Toy", metadata: { name: "t" }, spec: { want } };
  const knowledge: Knowledge = { problem: undefined, requestId: undefined, made: [], failures: [] };
  return {
    events,
    start: {
      deps,
      object,
      resource: schema.parse(object),
      knowledge,
      connection: undefined,
      now: new Date(0),
    },
  };
}

describe("converge: plan → perform → learn → plan", () => {
  it("plans the status on what the calls taught, once, after one round", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const { start: begin } = start(2);
    const done = await converge(kind, begin);
    expect(performed.map((a) => a.type)).toEqual(["mark", "make", "make"]);
    expect(done.plan.made).toEqual([0, 1]);
    expect(done.plan.actions).toEqual([]);
    expect(done.knowledge.requestId).toBe("req-1");
    expect(done.object?.status).toEqual({ marked: true });
    // Re-parsed from the written object: the mark is not planned again.
    expect(done.resource.status?.marked).toBe(true);
  });

  it("runs at most `rounds` rounds, leaving the rest planned", async () => {
    const { kind, performed } = toyKind({ perRound: 1, rounds: 2 });
    const { start: begin } = start(3);
    const done = await converge(kind, begin);
    expect(performed.map((a) => (a.type === "make" ? a.n : a.type))).toEqual(["mark", 0, 1]);
    expect(done.plan.actions).toEqual([{ type: "make", n: 2 }]);
  });

  it("stops at a failed call: the facts before it are kept, the failure is learned and reported once", async () => {
    const { kind, performed } = toyKind({ perRound: 5, failOn: 1 });
    const { start: begin, events } = start(3);
    const done = await converge(kind, begin);
    expect(performed.map((a) => (a.type === "make" ? a.n : a.type))).toEqual(["mark", 0, 1]);
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

  it("stops once the finalizer is released", async () => {
    const { kind, performed } = toyKind({ perRound: 5 });
    const releasing: typeof kind = {
      ...kind,
      async *perform(action) {
        performed.push(action);
        yield { type: "released" };
      },
    };
    const done = await converge(releasing, start(2).start);
    expect(done.object).toBeUndefined();
    expect(performed).toHaveLength(1);
  });
});
