import type { Me, Project as ServiceProject } from "../../hosting/index.ts";
import type { Problem } from "../shared/failure.ts";

/** What the Project controller remembers about one Project between reconciles. */
export interface ProjectMemory {
  /** The project at the service as last read or answered; undefined when unknown. */
  project: ServiceProject | undefined;
  /** The service answered 404 for the recorded project. */
  gone: boolean;
  driftDueAt: number | undefined;
  readGeneration: number | undefined;
  servedRequest: string | undefined;
  uncertainCreate: boolean;
  readySeen: boolean;
}

export function newProjectMemory(): ProjectMemory {
  return {
    project: undefined,
    gone: false,
    driftDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    uncertainCreate: false,
    readySeen: false,
  };
}

/** Everything `planProject` needs besides the Project itself. */
export interface ProjectObserved {
  problem: Problem | undefined;
  me: Me | undefined;
  project: ServiceProject | undefined;
  gone: boolean;
  /** Apps in the cluster that use this project (`namespace/name`). */
  clusterApps: string[];
  /** Names of apps at the service in this project (read only when deleting); undefined when not read. */
  serviceApps: string[] | undefined;
  requestId: string | undefined;
}
