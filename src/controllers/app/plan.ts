import type { App, AppStatus } from "../../api/app.ts";
import { reconciling } from "../../api/conditions.ts";
import { annotations } from "../../api/meta.ts";
import type { App as ServiceApp } from "../../hosting/index.ts";
import type { PollIntervals } from "../service/deps.ts";
import { shortHash } from "../service/hash.ts";
import { Reason } from "../service/reasons.ts";
import { pendingRequest, requestValue } from "../skeleton/annotations.ts";
import type { Plans } from "../skeleton/cleanup.ts";
import { noChange } from "../skeleton/condition-changes.ts";
import { createIntent, intentCall } from "../skeleton/intents.ts";
import type { AppAction } from "./actions.ts";
import { withAppCost } from "./cost.ts";
import { createAppKey, reaskAppIntent, recordedBody } from "./create-again.ts";
import { createBody, type DesiredApp } from "./desired.ts";
import { diffApp } from "./diff.ts";
import type { AppKnowledge } from "./memory.ts";
import { planAppCleanup } from "./plan-cleanup.ts";
import {
  type AppPlan,
  type AppPlanInput,
  blocked,
  generationOf,
  quoter,
  refusal,
  result,
} from "./plan-common.ts";
import { formatSecretDigests, parseSecretDigests } from "./secret-digest.ts";
import { describeState } from "./state.ts";

/** How an App is planned: being there, going away, and a status alone (the skeleton picks). */
export function appPlans(polls: PollIntervals): Plans<App, AppKnowledge, AppPlan> {
  return {
    externalId: "appId",
    // The project the app is in now (a move may be under way), and the one-off requests handled.
    owns: ["projectId", "lastHandledRestartAt", "lastHandledRebuildAt"],
    reask: reaskAppIntent,
    plan: (app, observed, now) => withAppCost(planApp({ app, observed, now, polls }), observed.external),
    planCleanup: (app, observed, now) =>
      withAppCost(planAppCleanup({ app, observed, now, polls }), observed.external),
    report: (app, observed, change, now) =>
      withAppCost(result({ app, observed, now, polls }, [], change), observed.external),
  };
}

/**
 * The App's next step, from the spec, what `observe` found and the time: which calls to make, the
 * status to write and when to look again, while it is there (the skeleton handles deletion, suspend
 * and problems). Pure: no I/O, no clock, no randomness.
 */
export function planApp(input: AppPlanInput): AppPlan {
  const { app, observed } = input;
  const { desired, me, projectId } = observed;
  if (desired === undefined || me === undefined || projectId === undefined) {
    return blocked(input, { stalled: false, reason: Reason.Progressing, message: "observing the app" });
  }
  const service = observed.external.app;
  if (service === undefined) {
    // Known to exist but not read yet (a restart spreads its first reads): nothing to decide yet.
    if (app.status?.appId !== undefined && !observed.external.gone) return result(input, [], noChange());
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
    return result(
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
  return result(
    input,
    [move],
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
  const create = newCreate(input, desired, projectId);
  const actions: AppAction[] = [create];
  const refused = refusal(input, create.projectId, actions, "create the app");
  if (refused !== undefined) return refused;
  const replaces = observed.external.gone ? app.status?.appId : undefined;
  const what = replaces === undefined ? "creating" : `recreating (app ${replaces} is gone at the service)`;
  const message = `${what} app ${create.body.name} in project ${create.projectId}`;
  return result(input, actions, reconciling(Reason.Progressing, message, generationOf(app)));
}

function newCreate(
  input: AppPlanInput,
  desired: DesiredApp,
  projectId: string,
): Extract<AppAction, { type: "create" }> {
  const { app, observed } = input;
  const body = createBody(desired);
  // A recreate (the app vanished at the service) must not replay the first create's answer.
  const replaces = observed.external.gone ? app.status?.appId : undefined;
  const key = createAppKey(app, { projectId, body, replaces, refused: observed.refusedCreates ?? 0 });
  const recorded = { projectId, name: body.name, body: recordedBody(body, desired) };
  const intent = createIntent("createApp", recorded, key, observed.refusedCreates);
  return { type: "create", projectId, body, idempotencyKey: key, intent };
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
  const refused = refusal(input, service.projectId, actions, "change the app");
  if (refused !== undefined) return refused;
  const view = describeState(app, observed.external, input.polls, quoter(observed));
  const plan = result(input, actions, view.change, fields);
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
    // Echoed once the claim is performed (a `recorded` fact), never while it is held back.
    actions.push({ type: "claim", request, value: pending });
    return echoed;
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

/** What appliedHash covers: the desired config, with secret values replaced by their digests. */
function hashable(desired: DesiredApp): unknown {
  return {
    ...desired,
    env: desired.env.map(({ name, secret, value, digest }) => ({ name, secret, v: secret ? digest : value })),
  };
}
