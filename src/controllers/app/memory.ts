import type { Build, Me, App as ServiceApp, AppStatus as ServiceStatus } from "../../hosting/index.ts";
import type { Problem } from "../service/failure.ts";
import type { Owner } from "../service/ownership.ts";
import type { Schedule } from "../skeleton/kind.ts";
import { type Met, newReadMemory } from "../skeleton/memory.ts";
import { earliest } from "../skeleton/schedule.ts";
import type { BuildLog } from "./build-log.ts";
import type { DesiredApp } from "./desired.ts";

/** What berth knows of the app at the service: read, or learned from the answers to its own calls. */
export interface ExternalApp {
  app: ServiceApp | undefined;
  status: ServiceStatus | undefined;
  build: Build | undefined;
  /** The failed build's log tail, once read (or why it can't be). */
  buildLog?: BuildLog | undefined;
  /** The service answered 404 for the app berth recorded. */
  gone: boolean;
  /** When this process last asked the service to start the app (ms). */
  startRequestedAt?: number | undefined;
  /** When the stop this process asked for should be over (ms): a deletion then tries the delete at once. */
  stopSettlesAt?: number | undefined;
  /** Whether the key's user owns the app (probed before a move: only owners may move it), per app ID. */
  moveOwner?: { appId: string; owner: boolean } | undefined;
  /** The last PATCH the service accepted (JSON) and when: the same one again soon after is a loop. */
  lastUpdate?: { patch: string; at: number } | undefined;
}

export const unknownExternal = (): ExternalApp => ({
  app: undefined,
  status: undefined,
  build: undefined,
  gone: false,
});

/** One-off annotation requests this process accepted (their echo is in status) but has not carried out. */
export interface Claims {
  restart?: string | undefined;
  rebuild?: string | undefined;
}

/** Everything `plan` needs besides the App itself: the result of `observe`. */
export interface AppObserved {
  /** Why nothing can be done now (credentials, project, references, a failed read). */
  problem: Problem | undefined;
  me: Me | undefined;
  /** The key's user and credential hash, once connected. */
  identity?: Owner | undefined;
  projectId: string | undefined;
  desired: DesiredApp | undefined;
  external: ExternalApp;
  claims: Claims;
  /** Digests of the secret values the service holds, as last applied (`NAME:digest,…`). */
  appliedSecrets: string | undefined;
  /** X-Request-Id of the last hosting call. */
  requestId: string | undefined;
  /** Creates the service refused for certain: the next create's key moves on (see `createAttempt`). */
  refusedCreates?: number;
  /** A lookup by name ran this reconcile and found no app a create of this App may have made. */
  lookedUpNothing?: boolean;
  /** Where a Pending move intent's app was found, looked up in the intent's own projects. */
  moveLookup?: "to" | "from" | "neither" | undefined;
}

export function emptyStatus(): ServiceStatus {
  return { state: "requested", targetState: "running", nodes: [], errors: [], endpoints: [] };
}

/** Which reads of the service a reconcile makes. */
export interface Reads {
  /** Look the app up by name in the project: a create may have happened without berth hearing of it. */
  lookup: boolean;
  app: boolean;
  status: boolean;
  build: boolean;
  /**
   * The App is settled and no one asked for these reads (a drift check, or its status read the
   * budget turned away): they go after user-driven work. An App still on its way to Ready
   * (created, changed, restarted) is a person's change in progress: its reads stay user work.
   */
  background: boolean;
  /** A drift check came due while the App is polled on its way to Ready: it is put off an interval. */
  driftPostponed: boolean;
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
  driftPostponed: false,
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

/** See `newReadMemory`. */
export function newAppMemory(met?: Met): AppMemory {
  return {
    ...newReadMemory(met),
    external: unknownExternal(),
    statusDueAt: undefined,
    buildDueAt: undefined,
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

/** The operator's timings the read schedule uses. */
export interface ReadTiming {
  /** The first read after a call's answer, at the latest. */
  startingMs: number;
  /** The next drift check's delay (spread). */
  driftMs(): number;
}

/**
 * When the status and build are next read: from now, for whatever this reconcile learned anew. A
 * claimed restart or rebuild runs in the next reconcile, at once: its echo's write wakes nothing
 * (a claim or a call a pause holds back is not in the plan, so it never spins).
 */
export function scheduleReads(
  knowledge: AppKnowledge,
  plan: {
    statusPollMs: number | undefined;
    buildPollMs: number | undefined;
    actions: readonly { type: string }[];
  },
  now: number,
  timing: ReadTiming,
): Schedule<AppKnowledge> {
  const { statusPollMs, buildPollMs, actions } = plan;
  const { reads, changedByCall } = knowledge;
  const next = { ...knowledge };
  // A drift check's status read the budget turned away stays due (see `readService`).
  const statusUnread = reads.background && knowledge.statusDueAt !== undefined;
  // A lookup that found the app learned it anew too: its status is read next, at once.
  if (!statusUnread && (reads.status || reads.build || reads.lookup || changedByCall.status)) {
    // A status taken from a call's answer (create, start…) is confirmed by a read once the app
    // should be running: not at once, and not after a long wait.
    const wait =
      changedByCall.status && statusPollMs !== undefined
        ? Math.min(statusPollMs, timing.startingMs)
        : statusPollMs;
    next.statusDueAt = wait === undefined ? undefined : now + wait;
  }
  if (reads.build || changedByCall.build)
    next.buildDueAt = buildPollMs === undefined ? undefined : now + buildPollMs;
  // Known from a create or a lookup rather than a read, or a check put off: drift counts from now.
  if ((next.driftDueAt === undefined || reads.driftPostponed) && next.external.app !== undefined) {
    next.driftDueAt = now + timing.driftMs();
  }
  // A claim made this reconcile records its echo; the restart or build trigger it leaves is next.
  const claimed = actions.some((action) => ["claim", "restart", "triggerBuild"].includes(action.type));
  return {
    knowledge: next,
    dueAt: earliest(next.statusDueAt, next.buildDueAt, next.driftDueAt, claimed ? now : undefined),
  };
}
