import type { Failed } from "../skeleton/kind.ts";
import { refusalsAfter } from "../skeleton/memory.ts";
import type { ProjectAction, ProjectFact } from "./actions.ts";
import type { ProjectKnowledge } from "./memory.ts";

/** The knowledge after a fact. Pure. */
export function learnProject(
  knowledge: ProjectKnowledge,
  fact: ProjectFact | Failed<ProjectAction>,
): ProjectKnowledge {
  switch (fact.type) {
    case "created":
      return {
        ...knowledge,
        project: fact.project,
        gone: false,
        uncertainCreate: false,
        readGeneration: fact.generation,
        ...(fact.sharesDueAt === undefined ? {} : { driftDueAt: fact.sharesDueAt }),
      };
    case "renamed":
      return { ...knowledge, project: fact.project };
    case "deleted":
      return { ...knowledge, gone: true };
    case "shareAdded":
      return { ...knowledge, shares: [...(knowledge.shares ?? []), fact.share] };
    case "shareChanged":
      return {
        ...knowledge,
        shares: knowledge.shares?.map((s) => (s.userId === fact.userId ? { ...s, role: fact.role } : s)),
      };
    case "shareRemoved":
      return { ...knowledge, shares: knowledge.shares?.filter((s) => s.userId !== fact.userId) };
    case "emailUser":
      return { ...knowledge, emailUsers: { ...knowledge.emailUsers, [fact.email]: fact.userId } };
    case "sharesStale":
      return { ...knowledge, shares: undefined, driftDueAt: fact.dueAt };
    case "memberRefused":
      return { ...knowledge, problem: fact.problem };
    case "failed":
      return learnFailure(knowledge, fact);
  }
}

function learnFailure(
  knowledge: ProjectKnowledge,
  { action, failure }: Failed<ProjectAction>,
): ProjectKnowledge {
  switch (action.type) {
    case "create":
      return {
        ...knowledge,
        uncertainCreate: knowledge.uncertainCreate || failure.uncertain,
        refusedCreates: refusalsAfter(knowledge.refusedCreates, failure),
      };
    case "addMember":
    case "changeMember":
    case "removeMember":
      // The remembered shares may be wrong now: the next reconcile (after the failure's backoff) reads them.
      return { ...knowledge, shares: undefined };
    default:
      return knowledge;
  }
}
