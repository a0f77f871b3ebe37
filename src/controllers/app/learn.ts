import type { Failed } from "../skeleton/kind.ts";
import { refusalsAfter } from "../skeleton/memory.ts";
import type { AppAction, AppFact } from "./actions.ts";
import { statusAfterCreate } from "./created.ts";
import type { AppKnowledge } from "./memory.ts";
import { emptyStatus } from "./memory.ts";

/** The knowledge after a fact. Pure. */
export function learnApp(knowledge: AppKnowledge, fact: AppFact | Failed<AppAction>): AppKnowledge {
  const { external } = knowledge;
  const byCall = (build = false) => ({
    changedByCall: { status: true, build: build || knowledge.changedByCall.build },
  });
  switch (fact.type) {
    case "claimed":
      return { ...knowledge, claims: { ...knowledge.claims, [fact.request]: fact.value } };
    case "created":
      return {
        ...knowledge,
        ...byCall(),
        external: {
          ...external,
          app: fact.app,
          gone: false,
          status: statusAfterCreate(fact.app),
          build: undefined,
          startRequestedAt: fact.at,
        },
        uncertainCreate: false,
        readGeneration: fact.generation,
        appliedSecrets: fact.appliedSecrets,
        buildDueAt: fact.buildDueAt,
      };
    case "updated": {
      const redeploying = fact.redeploy !== undefined && external.status?.targetState === "running";
      return {
        ...knowledge,
        ...(redeploying ? byCall() : {}),
        external: {
          ...external,
          app: fact.app,
          lastUpdate: { patch: fact.patch, at: fact.at },
          ...(redeploying && external.status !== undefined && fact.redeploy !== undefined
            ? { status: { ...external.status, state: fact.redeploy } }
            : {}),
        },
        ...("appliedSecrets" in fact ? { appliedSecrets: fact.appliedSecrets } : {}),
      };
    }
    case "powerRequested":
      return {
        ...knowledge,
        external:
          fact.action === "stop"
            ? { ...external, stopSettlesAt: fact.settlesAt }
            : { ...external, startRequestedAt: fact.at },
      };
    case "powerAccepted": {
      const stopping = fact.action === "stop";
      return {
        ...knowledge,
        ...byCall(),
        external: {
          ...external,
          status: {
            ...(external.status ?? emptyStatus()),
            state: stopping ? "stopping" : "requested",
            targetState: stopping ? "stopped" : "running",
          },
        },
        ...(fact.action === "restart" ? { claims: { ...knowledge.claims, restart: undefined } } : {}),
      };
    }
    case "rebuildAccepted":
      return { ...knowledge, claims: { ...knowledge.claims, rebuild: undefined } };
    case "buildStarted":
      return {
        ...knowledge,
        ...byCall(true),
        external: {
          ...external,
          app: fact.app,
          build: fact.app.buildId === undefined ? undefined : { id: fact.app.buildId, state: "queued" },
          ...(external.status?.targetState === "running"
            ? { status: { ...external.status, state: "building" } }
            : {}),
        },
        buildDueAt: undefined,
      };
    case "deleted":
      return { ...knowledge, external: { ...external, gone: true } };
    case "stillStopping":
      return {
        ...knowledge,
        external: {
          ...external,
          ...(external.status === undefined ? {} : { status: { ...external.status, state: "stopping" } }),
          stopSettlesAt: fact.settlesAt,
        },
        statusDueAt: fact.settlesAt,
      };
    case "moved":
      return {
        ...knowledge,
        external: { ...external, app: fact.app },
        ...(fact.app === undefined ? { readGeneration: undefined } : {}),
        statusDueAt: fact.at,
      };
    case "failed":
      return learnFailure(knowledge, fact);
  }
}

/** A failed create may have acted (look before creating again); a one-off request is given up unless surely not acted on. */
function learnFailure(knowledge: AppKnowledge, { action, failure }: Failed<AppAction>): AppKnowledge {
  if (action.type === "create") {
    return {
      ...knowledge,
      uncertainCreate: knowledge.uncertainCreate || failure.uncertain,
      refusedCreates: refusalsAfter(knowledge.refusedCreates, failure),
    };
  }
  const oneOff =
    action.type === "restart" ? "restart" : action.type === "triggerBuild" ? "rebuild" : undefined;
  if (oneOff !== undefined && (failure.stalled || failure.uncertain)) {
    return { ...knowledge, claims: { ...knowledge.claims, [oneOff]: undefined } };
  }
  return knowledge;
}
