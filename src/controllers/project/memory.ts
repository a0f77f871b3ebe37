import type { Me, Project as ServiceProject, Share } from "../../hosting/index.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { Problem } from "../service/failure.ts";
import type { Owner } from "../service/ownership.ts";
import { type Met, newReadMemory, type ReadMemory, readMemoryOf } from "../skeleton/memory.ts";

/** What the Project controller remembers about one Project between reconciles. */
export interface ProjectMemory extends ReadMemory {
  /** The project at the service as last read or answered; undefined when unknown. */
  project: ServiceProject | undefined;
  /** The project's shares as last listed or changed; undefined when unknown or spec.members is unset. */
  shares: Share[] | undefined;
  /** Lower-cased emails of members added by email, and the user IDs the service answered. */
  emailUsers: Record<string, string>;
}

/** See `newReadMemory`. */
export function newProjectMemory(met?: Met): ProjectMemory {
  return { ...newReadMemory(met), project: undefined, shares: undefined, emailUsers: {} };
}

/** What is kept of a reconcile's knowledge for the next one. */
export function rememberProject(knowledge: ProjectKnowledge): ProjectMemory {
  const { project, shares, emailUsers } = knowledge;
  return { ...readMemoryOf(knowledge), project, shares, emailUsers };
}

/** Everything known of one Project during a reconcile: the memory it started from and what observe read. */
export type ProjectKnowledge = ProjectObserved & ProjectMemory;

/** Everything `planProject` needs besides the Project itself. */
export interface ProjectObserved {
  problem: Problem | undefined;
  me: Me | undefined;
  /** The key's user and credential hash, once connected. */
  identity?: Owner | undefined;
  project: ServiceProject | undefined;
  gone: boolean;
  /** Apps in the cluster that use this project (`namespace/name`). */
  clusterApps: string[];
  /** The Apps in the cluster, as the informer holds them: the project's cost is the sum of theirs. */
  apps?: readonly KubeObject[] | undefined;
  /** Names of apps at the service in this project (read only when deleting); undefined when not read. */
  serviceApps: string[] | undefined;
  requestId: string | undefined;
  /** The project's shares (read only while spec.members is set); undefined when not known. */
  shares?: Share[] | undefined;
  emailUsers?: Record<string, string>;
  /** Creates the service refused for certain: the next create's key moves on (see `createAttempt`). */
  refusedCreates?: number;
  /** A lookup by name ran this reconcile and found no project a create of this Project may have made. */
  lookedUpNothing?: boolean;
}
