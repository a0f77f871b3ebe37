import type { App } from "../../api/app.ts";
import type { Intent } from "../../api/intents.ts";
import { appNames, finalizer, gridNames, projectNames } from "../../api/meta.ts";
import type { CallOptions, HostingClient, App as ServiceApp, WithMetadata } from "../../hosting/index.ts";
import { isHostingError } from "../../hosting/index.ts";
import { isDeferral } from "../../runtime/index.ts";
import { connectFailure } from "../service/connect.ts";
import { type ControllerDeps, credentialsFor, resourceTypeOf, secretLookup } from "../service/deps.ts";
import { describeFailure, type Failure, type Problem, stalledBy, waitingFor } from "../service/failure.ts";
import type { Connection } from "../service/hosting-access.ts";
import { createdCandidates, heldByOthers } from "../service/lookup.ts";
import { credentialsChanged, identityOf } from "../service/ownership.ts";
import { Reason } from "../service/reasons.ts";
import { pinningProblem, scopeProblem } from "../service/scopes.ts";
import { readSecretValue } from "../service/secrets.ts";
import { reconcileRequest } from "../skeleton/annotations.ts";
import { inputOf, pendingCreate, pendingIntent } from "../skeleton/intents.ts";
import type { Observation } from "../skeleton/kind.ts";
import { jittered } from "../skeleton/schedule.ts";
import { afterFailedRead, buildLogDue, failedStepTail } from "./build-log.ts";
import { appName, desiredApp } from "./desired.ts";
import { appDigest, type DriftListings } from "./drift-listing.ts";
import type { AppKnowledge, AppMemory } from "./memory.ts";
import { readsDue } from "./reads.ts";
import { secretDigest } from "./secret-digest.ts";

/**
 * Reads what the plan needs, starting from the memory: credentials and the key's identity, the
 * project, Secret and Grid references from the informers, and from the service only what is due
 * (see `readsDue`).
 */
export async function observeApp(
  deps: ControllerDeps,
  app: App,
  memory: AppMemory,
  listings: DriftListings,
): Promise<Observation<AppKnowledge>> {
  const knowledge: AppKnowledge = {
    ...memory,
    external: { ...memory.external },
    claims: { ...memory.claims },
    problem: undefined,
    me: undefined,
    projectId: undefined,
    desired: undefined,
    appliedSecrets: memory.appliedSecrets ?? app.status?.secretDigest,
    requestId: app.status?.lastRequestId,
    reads: readsDue(app, memory, deps.now()),
    changedByCall: { status: false, build: false },
  };
  // A full read due now serves the reconcile request, whether or not it gets through.
  if (knowledge.reads.app) knowledge.servedRequest = reconcileRequest(app);
  const nothing: Observation<AppKnowledge> = { knowledge, connection: undefined, failure: undefined };
  const deleting = app.metadata.deletionTimestamp !== undefined;
  const releasing =
    deleting &&
    (app.spec.deletionPolicy === "Orphan" || !(app.metadata.finalizers ?? []).includes(finalizer));
  if ((app.spec.suspend && !deleting) || releasing) return nothing;
  const namespace = app.metadata.namespace ?? "default";
  const credentials = credentialsFor(deps, app);
  if (!credentials.ok) return fail(nothing, stalledBy(Reason.CredentialsNotFound, credentials.message));
  let connection: Connection;
  try {
    connection = await deps.hosting.connect(credentials.credentials);
  } catch (error) {
    if (!isHostingError(error)) throw error;
    return fail(nothing, connectFailure(error, credentials.credentials));
  }
  knowledge.me = connection.me;
  knowledge.identity = identityOf(connection);
  const result: Observation<AppKnowledge> = { ...nothing, connection };
  const changed = credentialsChanged(app.status?.owner, knowledge.identity);
  if (changed !== undefined) return fail(result, changed);
  const projectId = resolveProject(deps, app);
  if (typeof projectId !== "string") return fail(result, projectId);
  knowledge.projectId = projectId;
  const { apiKey } = credentials.credentials;
  const desired = desiredApp(app, {
    secretValue: (name, key) => readSecretValue(secretLookup(deps), { namespace, name }, key),
    gridId: (name) => gridIdOf(deps, namespace, name),
    digest: (name, value) => secretDigest(apiKey, name, value),
  });
  // A deletion needs it only to ask a create again (see `reaskAppIntent`): a broken spec never holds it.
  if (desired.ok) knowledge.desired = desired.desired;
  else if (!deleting) return fail(result, desired.problem);
  const { reads } = knowledge;
  if (reads.spreadFirstRead) {
    knowledge.driftDueAt = deps.now() + Math.round(deps.random() * deps.settings.driftIntervalMs);
    return result;
  }
  if (!(reads.lookup || reads.app || reads.status || reads.build)) {
    await readBuildLog(deps, app, knowledge, connection);
    return result;
  }
  const refused =
    pinningProblem(connection.me, projectId, "read the app") ??
    scopeProblem(connection.me, ["apps:read"], "read the app");
  if (refused !== undefined) return fail(result, refused);
  try {
    await readService(deps, app, knowledge, connection, projectId, listings);
    // A move in doubt is settled before another is considered.
    if (pendingIntent(app.status, "moveApp") === undefined)
      await probeMoveOwner(knowledge, connection, projectId, reads.app);
  } catch (error) {
    // A drift check's status read turned away after its config was read: that much is kept.
    if (reads.background && isDeferral(error)) return { ...result, deferred: error };
    if (!isHostingError(error)) throw error;
    if (error.requestId !== undefined) knowledge.requestId = error.requestId;
    const failure = describeFailure(error, "reading the app at the service");
    if (failure.refreshIdentity) deps.hosting.forgetIdentity(connection.client);
    return fail(result, failure);
  }
  await readBuildLog(deps, app, knowledge, connection);
  return result;
}

/**
 * Before a move: whether the key's user owns the app, as only owners may move it. Only owners may
 * list an app's shares, so one listing answers it without trying the move.
 */
async function probeMoveOwner(
  knowledge: AppKnowledge,
  { client, me }: Connection,
  projectId: string,
  fullRead: boolean,
): Promise<void> {
  const { external } = knowledge;
  const current = external.app;
  if (current === undefined || current.projectId === projectId) return;
  // Known for this app, until the next full read (a spec change, a reconcile request, a drift check).
  if (external.moveOwner?.appId === current.id && !fullRead) return;
  if (scopeProblem(me, ["apps:admin"], "move the app") !== undefined) return;
  try {
    await client.listShares({ type: "app", projectId: current.projectId, appId: current.id }, { limit: 1 });
    external.moveOwner = { appId: current.id, owner: true };
  } catch (error) {
    if (!isHostingError(error) || error.code !== "forbidden") throw error;
    external.moveOwner = { appId: current.id, owner: false };
  }
}

/**
 * A failed build's log is read once (needs monitoring:read), and its failed step's tail kept for
 * status and a Warning event. A failed read never fails the reconcile: it is tried again later.
 */
async function readBuildLog(
  deps: ControllerDeps,
  app: App,
  knowledge: AppKnowledge,
  { client, me }: Connection,
): Promise<void> {
  const { external } = knowledge;
  const build = external.build;
  if (build === undefined || build.state !== "failed") return;
  const recorded = app.status?.build;
  if (external.buildLog === undefined && recorded?.id === build.id && recorded.logTail !== undefined) {
    external.buildLog = { buildId: build.id, tail: recorded.logTail };
  }
  const now = deps.now();
  if (!buildLogDue(build.id, external.buildLog, now)) return;
  if (scopeProblem(me, ["monitoring:read"], "read the build log") !== undefined) {
    external.buildLog = {
      buildId: build.id,
      unreadable: "the API key lacks monitoring:read to read the build log",
    };
    return;
  }
  try {
    const log = await client.getBuildLogs(build.id);
    const secrets = (knowledge.desired?.env ?? []).filter((e) => e.secret).map((e) => e.value);
    external.buildLog = {
      buildId: build.id,
      tail: failedStepTail(log.text, build.failedStep ?? undefined, secrets),
    };
  } catch (error) {
    if (!isHostingError(error)) throw error;
    const reason = `reading the build log failed (${error.code})`;
    external.buildLog = afterFailedRead(
      build.id,
      external.buildLog,
      reason,
      now,
      deps.settings.polls.waitingMs,
    );
  }
}

/** Reads into `knowledge`, this observe's own draft. */
async function readService(
  deps: ControllerDeps,
  app: App,
  knowledge: AppKnowledge,
  { client }: Connection,
  projectId: string,
  listings: DriftListings,
): Promise<void> {
  const { reads, external } = knowledge;
  const options: CallOptions = { priority: reads.background ? "background" : "user" };
  const now = deps.now();
  const note = (metadata: { requestId: string | undefined }) => {
    if (metadata.requestId !== undefined) knowledge.requestId = metadata.requestId;
  };
  if (reads.lookup) {
    const created = pendingCreate(app.status, "createApp");
    const name = created.name ?? appName(app);
    const where = created.projectId ?? projectId;
    const held = heldByOthers(deps, resourceTypeOf(appNames), app.metadata.uid, "appId");
    const found = await createdCandidates(
      async (cursor) => {
        const page = await client.listApps(where, { name, cursor }, options);
        note(page.$metadata);
        return page;
      },
      held,
      app.metadata.creationTimestamp,
    ).catch(noProject(knowledge));
    if (found.length > 1) {
      knowledge.problem = stalledBy(
        Reason.DuplicateCreated,
        `a create of app ${name} had an unknown outcome and ${found.length} apps of that name now exist in project ` +
          `${where} (${found.map((a) => a.id).join(", ")}); set spec.appId to the one to keep and delete the others`,
      );
      return;
    }
    knowledge.uncertainCreate = false;
    const [single] = found;
    knowledge.lookedUpNothing = single === undefined;
    if (single !== undefined) {
      external.app = single;
      external.gone = false;
      knowledge.readGeneration = undefined;
    }
    return;
  }
  const appId = app.status?.appId ?? external.app?.id ?? app.spec.appId ?? "";
  const move = pendingIntent(app.status, "moveApp");
  if (move !== undefined) {
    await lookUpMove(knowledge, move, (where) => client.getApp(where, appId, options), note);
    return;
  }
  // Where the app was last seen; a move this process did not hear the answer to may have acted.
  const seenIn = external.app?.projectId ?? app.status?.projectId ?? projectId;
  if (reads.app) {
    try {
      const listed = await fromListing(knowledge, listings, client, projectId, seenIn, now);
      if (!listed) {
        const read = await readAppIn([seenIn, projectId], (where) => client.getApp(where, appId, options));
        note(read.$metadata);
        external.app = read;
      }
      external.gone = false;
    } catch (error) {
      // An app spec.appId names and berth never adopted: its absence is the user's to fix.
      noteGone(knowledge, error, app.spec.appId !== undefined && app.status?.appId === undefined);
      return;
    }
    knowledge.readGeneration = app.metadata.generation ?? 0;
    knowledge.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
  }
  if (reads.status) {
    // A drift check's status read turned away by the budget stays due (drift stretches, not skips).
    if (reads.background) knowledge.statusDueAt ??= now;
    try {
      const status = await client.getAppStatus(external.app?.projectId ?? seenIn, appId, options);
      note(status.$metadata);
      external.status = status;
      knowledge.statusDueAt = undefined;
    } catch (error) {
      noteGone(knowledge, error);
      return;
    }
  }
  const buildId = external.app?.buildId ?? app.status?.build?.id;
  if (reads.build && buildId !== undefined) {
    const build = await client.getBuild(buildId, options);
    note(build.$metadata);
    external.build = build;
    knowledge.buildDueAt = undefined;
  }
}

/**
 * The project a create went to is gone (deleted meanwhile): no app it made can still exist there,
 * so the lookup found nothing. Any other failure is rethrown.
 */
function noProject(knowledge: AppKnowledge): (error: unknown) => ServiceApp[] {
  return (error) => {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    if (error.requestId !== undefined) knowledge.requestId = error.requestId;
    return [];
  };
}

/**
 * A read answered 404: the app is gone, and nothing is known of it, so the plan decides afresh
 * instead of waiting on it. Any other failure, or a 404 that is `fatal`, is rethrown.
 */
function noteGone(knowledge: AppKnowledge, error: unknown, fatal = false): void {
  if (!isHostingError(error) || error.code !== "not_found") throw error;
  if (error.requestId !== undefined) knowledge.requestId = error.requestId;
  if (fatal) throw error;
  knowledge.external.gone = true;
  knowledge.external.app = undefined;
  knowledge.external.status = undefined;
}

/**
 * A drift check of a settled App from its project's shared listing: taken only when the listing
 * shows the app as last known (a difference, or a listing that misses the app, is read on its own
 * before anything acts on it). True when the listing answered the check.
 */
async function fromListing(
  knowledge: AppKnowledge,
  listings: DriftListings,
  client: HostingClient,
  projectId: string,
  seenIn: string,
  now: number,
): Promise<boolean> {
  const known = knowledge.external.app;
  const { driftDueAt, reads } = knowledge;
  if (!reads.background || known === undefined || seenIn !== projectId) return false;
  const listed = await listings.read(client, projectId, known.id, driftDueAt ?? now);
  return listed !== undefined && listed === appDigest(known);
}

/**
 * A move whose outcome is unknown: the app is looked for in the two projects the move named (never
 * the project the spec names now), its new one first.
 */
async function lookUpMove(
  knowledge: AppKnowledge,
  move: Intent,
  read: (projectId: string) => Promise<WithMetadata<ServiceApp>>,
  note: (metadata: { requestId: string | undefined }) => void,
): Promise<void> {
  const { from, to } = inputOf<{ from: string; to: string }>(move) ?? {};
  if (from === undefined || to === undefined) return;
  for (const [where, projectId] of [
    ["to", to],
    ["from", from],
  ] as const) {
    try {
      const found = await read(projectId);
      note(found.$metadata);
      knowledge.external.app = found;
      knowledge.external.gone = false;
      knowledge.moveLookup = where;
      return;
    } catch (error) {
      if (!isHostingError(error) || error.code !== "not_found") throw error;
      note(error);
    }
  }
  knowledge.moveLookup = "neither";
}

/** The app as read in the first of the projects that holds it: a 404 in all is the last one's. */
async function readAppIn<T>(projects: string[], read: (projectId: string) => Promise<T>): Promise<T> {
  const [first, ...rest] = [...new Set(projects)];
  try {
    return await read(first ?? "");
  } catch (error) {
    if (rest.length === 0 || !isHostingError(error) || error.code !== "not_found") throw error;
    return readAppIn(rest, read);
  }
}

/** A Pending intent is settled by a read at once: never spread, never left to the drift check. */
/** The project the spec asks for: a changed projectRef or projectId means a move. */
function resolveProject(deps: ControllerDeps, app: App): string | Problem {
  if (app.spec.projectId !== undefined) return app.spec.projectId.toLowerCase();
  const ref = app.spec.projectRef?.name ?? "";
  const project = deps.informer(resourceTypeOf(projectNames)).get(`${app.metadata.namespace}/${ref}`);
  const id = (project?.status as { projectId?: unknown } | undefined)?.projectId;
  if (typeof id === "string") return id;
  // A Project not (or no longer) there: the app stays where it is.
  if (app.status?.projectId !== undefined) return app.status.projectId;
  return waitingFor(
    Reason.ProjectNotReady,
    project === undefined
      ? `waiting for Project ${ref} in namespace ${app.metadata.namespace} to exist`
      : `waiting for Project ${ref} to be created at the service`,
  );
}

function gridIdOf(deps: ControllerDeps, namespace: string, name: string): string | undefined {
  const grid = deps.informer(resourceTypeOf(gridNames)).get(`${namespace}/${name}`);
  const id = (grid?.status as { gridId?: unknown } | undefined)?.gridId;
  return typeof id === "string" ? id : undefined;
}

function fail(observation: Observation<AppKnowledge>, problem: Problem | Failure): Observation<AppKnowledge> {
  const { knowledge } = observation;
  knowledge.problem = { stalled: problem.stalled, reason: problem.reason, message: problem.message };
  if ("requestId" in problem) {
    observation.failure = problem;
    if (problem.requestId !== undefined) knowledge.requestId = problem.requestId;
  }
  return observation;
}
