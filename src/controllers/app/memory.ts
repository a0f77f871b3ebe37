import type { AppObserved, Claims, ExternalApp } from "./observed.ts";
import { unknownExternal } from "./observed.ts";

/** Which reads of the service a reconcile makes. */
export interface Reads {
  /** Look the app up by name in the project: a create may have happened without berth hearing of it. */
  lookup: boolean;
  app: boolean;
  status: boolean;
  build: boolean;
  /** Only a periodic drift check is due: the reads go after user-driven work. */
  background: boolean;
  /**
   * Nothing is known in memory, but status says the App is settled (a restart): schedule its first
   * read at a random point within the drift interval rather than reading every App at once.
   */
  spreadFirstRead: boolean;
}

export const noReads: Reads = {
  lookup: false,
  app: false,
  status: false,
  build: false,
  background: false,
  spreadFirstRead: false,
};

/** What the App controller remembers about one App between reconciles. */
export interface AppMemory {
  external: ExternalApp;
  /** When the app's status, its build, and the whole app (drift check) are next due for a read. */
  statusDueAt: number | undefined;
  buildDueAt: number | undefined;
  driftDueAt: number | undefined;
  /** The spec generation the service's config was last compared with. */
  readGeneration: number | undefined;
  /** The reconcile-request annotation value a fresh read already served. */
  servedRequest: string | undefined;
  /** A create failed in a way the service may have acted on: look the app up before creating. */
  uncertainCreate: boolean;
  /** Creates the service refused for certain (see `createAttempt`). */
  refusedCreates: number;
  claims: Claims;
  /** Secret digests the service holds since this process applied them (status may lag). */
  appliedSecrets: string | undefined;
}

export function newAppMemory(): AppMemory {
  return {
    external: unknownExternal(),
    statusDueAt: undefined,
    buildDueAt: undefined,
    driftDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    uncertainCreate: false,
    refusedCreates: 0,
    claims: {},
    appliedSecrets: undefined,
  };
}

/** Everything known of one App during a reconcile: the memory it started from and what observe read. */
export type AppKnowledge = AppObserved &
  AppMemory & {
    /** The reads this reconcile was due to make: what they cover is read again from now. */
    reads: Reads;
    /** A call's answer changed the service's status or build: their next reads are scheduled from now. */
    changedByCall: { status: boolean; build: boolean };
  };

/** What is kept of a reconcile's knowledge for the next one (per-reconcile reads dropped). */
export function rememberApp(knowledge: AppKnowledge): AppMemory {
  const { external, statusDueAt, buildDueAt, driftDueAt, readGeneration, servedRequest } = knowledge;
  const { uncertainCreate, refusedCreates, claims, appliedSecrets } = knowledge;
  return {
    external,
    statusDueAt,
    buildDueAt,
    driftDueAt,
    readGeneration,
    servedRequest,
    uncertainCreate,
    refusedCreates,
    claims,
    appliedSecrets,
  };
}
