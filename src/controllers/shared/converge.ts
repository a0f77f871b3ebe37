import { isHostingError } from "../../hosting/index.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "./deps.ts";
import { describeFailure, type Failure } from "./failure.ts";
import type { Connection } from "./hosting-access.ts";
import type { BaseKnowledge, BasePlan, Kind, ObjectFact, Resource } from "./kind.ts";
import { parseForReconcile } from "./parse.ts";

/** Where one reconcile starts acting from. */
export interface ConvergeStart<R, K> {
  deps: ControllerDeps;
  object: KubeObject;
  resource: R;
  knowledge: K;
  connection: Connection | undefined;
  now: Date;
}

/** Where it left off: the object (undefined once released), what is known, and the plan whose status is written. */
export interface Converged<R, K, P> {
  object: KubeObject | undefined;
  resource: R;
  knowledge: K;
  plan: P;
  /** The call the actions stopped at. */
  failure: Failure | undefined;
  /** Not the service's error (a Kubernetes write failed): rethrown once what was learned is kept. */
  interrupted?: { error: unknown };
}

const objectFacts = new Set<string>(["written", "released", "answered"] satisfies ObjectFact["type"][]);

function isObjectFact<F>(fact: F | ObjectFact): fact is ObjectFact {
  return objectFacts.has((fact as { type?: unknown }).type as string);
}

/**
 * plan → perform → learn → plan, for up to `kind.rounds` rounds, stopping at the first failed call.
 * The returned plan is made on everything learned, so the status written reflects the calls' answers.
 */
export async function converge<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends { type: string },
  F,
  P extends BasePlan<A>,
>(kind: Kind<R, M, K, A, F, P>, start: ConvergeStart<R, K>): Promise<Converged<R, K, P>> {
  const { deps, connection, now } = start;
  let { object, resource, knowledge } = start;
  let plan = kind.plan(resource, knowledge, now);
  for (let round = 1; round <= (kind.rounds ?? 1) && plan.actions.length > 0; round++) {
    for (const action of plan.actions) {
      try {
        for await (const fact of kind.perform(action, { deps, object, resource, knowledge, connection })) {
          if (!isObjectFact(fact)) {
            knowledge = kind.learn(knowledge, fact);
          } else if (fact.type === "released") {
            return { object: undefined, resource, knowledge, plan, failure: undefined };
          } else if (fact.type === "answered") {
            if (fact.requestId !== undefined) knowledge = { ...knowledge, requestId: fact.requestId };
          } else {
            object = fact.object;
            const parsed = parseForReconcile(kind.schema, object);
            if (parsed.success) resource = parsed.data;
          }
        }
      } catch (error) {
        if (!isHostingError(error)) {
          return { object, resource, knowledge, plan, failure: undefined, interrupted: { error } };
        }
        const failure = describeFailure(error, kind.doing(action));
        knowledge = kind.learn(knowledge, { type: "failed", action, failure, error });
        if (failure.requestId !== undefined) knowledge = { ...knowledge, requestId: failure.requestId };
        // The key's scopes or projects may have changed: read its identity again next time.
        if (failure.refreshIdentity && connection !== undefined)
          deps.hosting.forgetIdentity(connection.client);
        deps.recorder.record(start.object, "Warning", failure.reason, failure.message, action.type);
        return { object, resource, knowledge, plan: kind.plan(resource, knowledge, now), failure };
      }
    }
    plan = kind.plan(resource, knowledge, now);
  }
  return { object, resource, knowledge, plan, failure: undefined };
}
