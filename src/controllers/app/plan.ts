import type { App, AppStatus } from "../../api/app.ts";
import { applyConditionChange, type ConditionChange, reconciling } from "../../api/conditions.ts";
import { annotations, finalizer } from "../../api/meta.ts";
import { idempotencyKey, type App as ServiceApp } from "../../hosting/index.ts";
import { pendingRequest, reconcileRequest, requestValue } from "../shared/annotations.ts";
import { noChange, problemChange, quoteRequest, suspended } from "../shared/condition-changes.ts";
import type { PollIntervals } from "../shared/deps.ts";
import type { Problem } from "../shared/failure.ts";
import { shortHash } from "../shared/hash.ts";
import { createIntent, intentCall } from "../shared/intents.ts";
import { createAttempt } from "../shared/memory.ts";
import { ownerToRecord } from "../shared/ownership.ts";
import { Reason } from "../shared/reasons.ts";
import { pinningProblem, scopeProblem } from "../shared/scopes.ts";
import { type AppAction, scopesFor } from "./actions.ts";
import { createBody, type DesiredApp } from "./desired.ts";
import { diffApp } from "./diff.ts";
import type { AppObserved } from "./memory.ts";
import { formatSecretDigests, parseSecretDigests } from "./secret-digest.ts";
import { describeState, domainConditions, externalFields } from "./state.ts";

export interface AppPlanInput {
  app: App;
  observed: AppObserved;
  now: Date;
  polls: PollIntervals;
}

export interface AppPlan {
  actions: AppAction[];
  /** The whole status to write (the patcher sends only what differs). */
  status: AppStatus;
  /** A person must act: retry slowly, not with backoff. */
  stalled: boolean;
  statusPollMs: number | undefined;
  buildPollMs: number | undefined;
}

/**
 * The App's next step, from the spec, what `observe` found and the time: which calls to make, the
 * status to write and when to look again. Pure: no I/O, no clock, no randomness.
 */
export function planApp(input: AppPlanInput): AppPlan {
  const { app, observed } = input;
  if (app.metadata.deletionTimestamp !== undefined) return planDeletion(input);
  if (app.spec.suspend) return outcome(input, [], suspended(generationOf(app)));
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  const { desired, me, projectId } = observed;
  if (desired === undefined || me === undefined || projectId === undefined) {
    return blocked(input, { stalled: false, reason: Reason.Progressing, message: "observing the app" });
  }
  const service = observed.external.app;
  if (service === undefined) {
    // Known to exist but not read yet (a restart spreads its first reads): nothing to decide yet.
    if (app.status?.appId !== undefined && !observed.external.gone) return outcome(input, [], noChange());
    return planCreate(input, desired, projectId);
  }
  if (service.projectId !== projectId) return planMove(input, service, projectId);
  return planConverge(input, desired, service);
}

/**
 * A changed projectRef/projectId moves the app, keeping its ID: apps:admin and ownership first
 * (only owners may move an app), and the rest of the spec once it is in its new project.
 */
function planMove(input: AppPlanInput, service: ServiceApp, target: string): AppPlan {
  const { app, observed } = input;
  const generation = generationOf(app);
  const from = service.projectId;
  const intent = intentCall(app, "moveApp", { appId: service.id, from, to: target });
  const move: AppAction = { type: "move", from, to: target, intent };
  const purpose = `move the app from project ${from} to project ${target}`;
  const refused = refusal(input, from, [move], purpose) ?? refusal(input, target, [move], purpose);
  if (refused !== undefined) return refused;
  const owner = observed.external.moveOwner;
  if (owner?.appId !== service.id) {
    return outcome(
      input,
      [],
      reconciling(
        Reason.Moving,
        `checking that the key's user owns app ${service.id} before moving it`,
        generation,
      ),
    );
  }
  if (!owner.owner) {
    return blocked(input, {
      stalled: true,
      reason: Reason.Forbidden,
      message:
        `moving app ${service.id} from project ${from} to project ${target} needs ownership of the app, and the key's user ` +
        "is not its owner: use a key of the app's owner, or set spec.projectRef/projectId back",
    });
  }
  return outcome(
    input,
    withFinalizer(app, [move]),
    reconciling(
      Reason.Moving,
      `moving app ${service.id} from project ${from} to project ${target}`,
      generation,
    ),
  );
}

function planCreate(input: AppPlanInput, desired: DesiredApp, projectId: string): AppPlan {
  const { app, observed } = input;
  if (app.spec.appId !== undefined) {
    // Adoption never turns into creation: the adopted app is someone's, and it is gone.
    return blocked(input, {
      stalled: true,
      reason: Reason.ExternalNotFound,
      message: `the adopted app ${app.spec.appId} does not exist at the service (or the key can't see it); fix spec.appId, or remove it to let berth create an app`,
    });
  }
  const body = createBody(desired);
  // A recreate (the app vanished at the service) must not replay the first create's answer.
  const replaces = observed.external.gone ? app.status?.appId : undefined;
  const key = idempotencyKey(app.metadata.uid ?? app.metadata.name, "createApp", {
    projectId,
    body,
    ...(replaces === undefined ? {} : { replaces }),
    ...createAttempt(observed.refusedCreates ?? 0),
  });
  const intent = createIntent("createApp", { projectId, name: body.name }, key, observed.refusedCreates);
  const create: AppAction = { type: "create", projectId, body, idempotencyKey: key, intent };
  const actions = withFinalizer(app, [create]);
  const refused = refusal(input, projectId, actions, "create the app");
  if (refused !== undefined) return refused;
  const what = replaces === undefined ? "creating" : `recreating (app ${replaces} is gone at the service)`;
  return outcome(
    input,
    actions,
    reconciling(Reason.Progressing, `${what} app ${desired.name} in project ${projectId}`, generationOf(app)),
  );
}

function planConverge(input: AppPlanInput, desired: DesiredApp, service: ServiceApp): AppPlan {
  const { app, observed } = input;
  const status = observed.external.status;
  const actions: AppAction[] = [];
  const diff = diffApp(desired, service, parseSecretDigests(observed.appliedSecrets));
  const configHash = shortHash(hashable(desired));
  if (diff.fields.length > 0 && sentJustBefore(input, diff.patch)) {
    // The service said yes to this very PATCH a moment ago and still reports the old values:
    // sending it again would loop (and spend the key's budget). A person must look.
    return blocked(input, {
      stalled: true,
      reason: Reason.UpdateNotApplied,
      message: `the service accepted a change of ${diff.fields.join(", ")} but still reports the old value; berth stopped sending it: check how the service stores ${diff.fields.join(", ")}, then change the spec`,
    });
  }
  if (diff.fields.length > 0) {
    const specUnchanged =
      app.status?.appliedHash === configHash && app.status.observedGeneration === generationOf(app);
    actions.push({
      type: "update",
      patch: diff.patch,
      fields: diff.fields,
      drift: specUnchanged,
    });
  }
  if (status !== undefined) {
    if (app.spec.stopped && status.targetState !== "stopped") actions.push({ type: "stop" });
    if (!app.spec.stopped && status.targetState === "stopped") {
      actions.push({ type: "start", drift: app.status?.targetState === "running" });
    } else if (!app.spec.stopped && startAgainDue(input, status.state, diff.fields.length > 0)) {
      actions.push({ type: "start", drift: false });
    }
  }
  const fields: Partial<AppStatus> = {};
  fields.lastHandledRestartAt = oneOff(input, "restart", actions, desired);
  fields.lastHandledRebuildAt = oneOff(input, "rebuild", actions, desired);
  if (!diff.fields.includes("env")) fields.secretDigest = formatSecretDigests(desired.env);
  if (diff.fields.length === 0) fields.appliedHash = configHash;
  const all = withFinalizer(app, actions);
  const refused = refusal(input, service.projectId, all, "change the app");
  if (refused !== undefined) return refused;
  const view = describeState(app, observed.external, input.polls, quoter(observed));
  const plan = outcome(input, all, view.change, fields);
  return { ...plan, statusPollMs: view.statusPollMs, buildPollMs: view.buildPollMs };
}

/** The same PATCH was accepted within the last `polls.waitingMs` (a drift revert comes far less often). */
function sentJustBefore(input: AppPlanInput, patch: unknown): boolean {
  const last = input.observed.external.lastUpdate;
  return (
    last !== undefined &&
    last.patch === JSON.stringify(patch) &&
    input.now.getTime() - last.at < input.polls.waitingMs
  );
}

/**
 * A deferred or start_blocked app stays so until it is started again, even once its cause is gone
 * (the service does not heal by itself). berth starts it again at once after a config change, and
 * otherwise at most every `polls.waitingMs`: a start refused for balance costs nothing.
 */
function startAgainDue(input: AppPlanInput, state: string, configChanges: boolean): boolean {
  if (state !== "deferred" && state !== "start_blocked") return false;
  const asked = input.observed.external.startRequestedAt;
  return configChanges || asked === undefined || input.now.getTime() - asked >= input.polls.waitingMs;
}

/**
 * A restart or rebuild annotation: the first reconcile that sees a new value echoes it in status
 * and claims it in memory; the next one (the echo written) makes the call. A crash between the two
 * loses the request rather than repeating it: these calls are not idempotent at the service.
 */
function oneOff(
  input: AppPlanInput,
  request: "restart" | "rebuild",
  actions: AppAction[],
  desired: DesiredApp,
): string | undefined {
  const { app, observed } = input;
  const key = request === "restart" ? annotations.restartRequestedAt : annotations.rebuildRequestedAt;
  const echoed = request === "restart" ? app.status?.lastHandledRestartAt : app.status?.lastHandledRebuildAt;
  const value = requestValue(app, key);
  const pending = pendingRequest(value, echoed);
  if (pending !== undefined) {
    actions.push({ type: "claim", request, value: pending });
    return pending;
  }
  if (value === undefined || observed.claims[request] !== value) return echoed;
  const applicable = request === "restart" ? !app.spec.stopped : desired.source !== undefined;
  const starting = actions.some((a) => a.type === "start");
  if (applicable && !starting) {
    const operation = request === "restart" ? "restartApp" : "triggerBuild";
    const intent = intentCall(app, operation, { appId: observed.external.app?.id, requestedAt: value });
    actions.push(
      request === "restart"
        ? { type: "restart", requestedAt: value, intent }
        : { type: "triggerBuild", requestedAt: value, intent },
    );
  }
  return echoed;
}

function planDeletion(input: AppPlanInput): AppPlan {
  const { app, observed } = input;
  const generation = generationOf(app);
  if (!(app.metadata.finalizers ?? []).includes(finalizer)) return outcome(input, [], noChange());
  const appId = app.status?.appId ?? observed.external.app?.id;
  const release = () =>
    outcome(
      input,
      [{ type: "removeFinalizer" }],
      reconciling(Reason.Deleting, "releasing the app", generation),
    );
  if (app.spec.deletionPolicy === "Orphan") return release();
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  if (observed.external.gone) return release();
  // With no ID a create may still have happened: released only once a lookup found nothing.
  if (appId === undefined) {
    if (observed.lookedUpNothing === true) return release();
    return outcome(
      input,
      [],
      reconciling(Reason.Deleting, "looking for an app a create may have made", generation),
    );
  }
  const status = observed.external.status;
  if (status === undefined) {
    return {
      ...outcome(input, [], reconciling(Reason.Deleting, "reading the app's status", generation)),
      statusPollMs: 0,
    };
  }
  const projectId = app.status?.projectId ?? observed.projectId ?? "";
  if (status.state === "stopped" || stopDone(input, status)) {
    const actions: AppAction[] = [{ type: "delete" }, { type: "removeFinalizer" }];
    return (
      refusal(input, projectId, actions, "delete the app") ??
      outcome(input, actions, reconciling(Reason.Deleting, "deleting the stopped app", generation))
    );
  }
  const actions: AppAction[] = status.targetState === "stopped" ? [] : [{ type: "stop" }];
  const refused = refusal(input, projectId, actions, "stop the app before deleting it");
  if (refused !== undefined) return refused;
  const plan = outcome(
    input,
    actions,
    reconciling(Reason.Deleting, `stopping the app before deleting it (state ${status.state})`, generation),
  );
  // A little after the stop should be over (the wait runs from this reconcile's start, before the call).
  return { ...plan, statusPollMs: input.polls.stoppingMs + Math.ceil(input.polls.stoppingMs / 8) };
}

/**
 * The stop this process asked for should be over: the delete itself is the look at the app (the
 * service refuses it with app_not_stopped while it is still stopping), saving a status read.
 */
function stopDone(input: AppPlanInput, status: { targetState: string }): boolean {
  const settlesAt = input.observed.external.stopSettlesAt;
  return status.targetState === "stopped" && settlesAt !== undefined && settlesAt <= input.now.getTime();
}

/** Stalled with the missing scopes or the project pinning, instead of a call certain to be refused. */
function refusal(
  input: AppPlanInput,
  projectId: string,
  actions: readonly AppAction[],
  purpose: string,
): AppPlan | undefined {
  const me = input.observed.me;
  if (me === undefined) return undefined;
  const calls = actions.filter((a) => scopesFor(a).length > 0);
  if (calls.length === 0) return undefined;
  const problem =
    pinningProblem(me, projectId, purpose) ?? scopeProblem(me, calls.flatMap(scopesFor), purpose);
  return problem === undefined ? undefined : blocked(input, problem);
}

function blocked(input: AppPlanInput, problem: Problem): AppPlan {
  return outcome(input, [], problemChange(problem, generationOf(input.app)));
}

function outcome(
  input: AppPlanInput,
  actions: AppAction[],
  change: ConditionChange,
  fields: Partial<AppStatus> = {},
): AppPlan {
  const { app, observed, now } = input;
  const previous = app.status ?? {};
  const conditions = applyConditionChange(
    applyConditionChange(previous.conditions, change, now),
    observed.external.status === undefined ? noChange() : domainConditions(app, observed.external),
    now,
  );
  const reconcileAt = app.spec.suspend ? previous.lastHandledReconcileAt : reconcileRequest(app);
  const status: AppStatus = {
    ...previous,
    ...externalFields(observed.external),
    ...ownerToRecord(previous.owner, observed.identity, observed.external.app !== undefined),
    ...fields,
    ...(observed.projectId === undefined || observed.external.app !== undefined
      ? {}
      : { projectId: observed.projectId }),
    ...(reconcileAt === undefined ? {} : { lastHandledReconcileAt: reconcileAt }),
    lastRequestId: observed.requestId,
    observedGeneration: generationOf(app),
    conditions,
  };
  const isStalled = change.set.some((c) => c.type === "Stalled" && c.status === "True");
  const all = [...actions, ...newBuildLog(status, previous)];
  return { actions: all, status, stalled: isStalled, statusPollMs: undefined, buildPollMs: undefined };
}

/** A failed build's log tail not yet in status is reported once, as a Warning event. */
function newBuildLog(status: AppStatus, previous: Partial<AppStatus>): AppAction[] {
  const { id, logTail } = status.build ?? {};
  if (id === undefined || logTail === undefined || logTail === previous.build?.logTail) return [];
  return [{ type: "reportBuildLog", buildId: id, tail: logTail }];
}

function withFinalizer(app: App, actions: AppAction[]): AppAction[] {
  return (app.metadata.finalizers ?? []).includes(finalizer)
    ? actions
    : [{ type: "addFinalizer" }, ...actions];
}

function quoter(observed: AppObserved): (message: string) => string {
  return (message) => quoteRequest(observed.requestId, message);
}

function generationOf(app: App): number {
  return app.metadata.generation ?? 0;
}

/** What appliedHash covers: the desired config, with secret values replaced by their digests. */
function hashable(desired: DesiredApp): unknown {
  return {
    ...desired,
    env: desired.env.map(({ name, secret, value, digest }) => ({ name, secret, v: secret ? digest : value })),
  };
}
