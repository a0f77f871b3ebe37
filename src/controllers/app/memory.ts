import { type Claims, type ExternalApp, unknownExternal } from "./observed.ts";

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
  /** This process already saw the App Ready (for the time-to-first-Ready metric). */
  readySeen: boolean;
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
    readySeen: false,
  };
}
