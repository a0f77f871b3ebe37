import type { Build, Me, App as ServiceApp, AppStatus as ServiceStatus } from "../../hosting/index.ts";
import type { Problem } from "../shared/failure.ts";
import type { Owner } from "../shared/ownership.ts";
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
