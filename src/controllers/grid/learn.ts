import type { Failed } from "../skeleton/kind.ts";
import { refusalsAfter } from "../skeleton/memory.ts";
import type { GridAction, GridFact } from "./actions.ts";
import type { GridKnowledge } from "./memory.ts";

/** The knowledge after a fact. Pure. */
export function learnGrid(knowledge: GridKnowledge, fact: GridFact | Failed<GridAction>): GridKnowledge {
  switch (fact.type) {
    case "known":
      return {
        ...knowledge,
        grid: fact.grid,
        gone: false,
        uncertainCreate: false,
        ...(fact.generation === undefined ? {} : { readGeneration: fact.generation }),
      };
    case "deleted":
      return { ...knowledge, grid: undefined, gone: true };
    case "failed": {
      if (fact.action.type !== "create") return knowledge;
      const { failure } = fact;
      return {
        ...knowledge,
        uncertainCreate: knowledge.uncertainCreate || failure.uncertain,
        refusedCreates: refusalsAfter(knowledge.refusedCreates, failure),
      };
    }
  }
}
