import type { App } from "../../api/app.ts";
import { isTrue } from "../../api/conditions.ts";
import { annotations } from "../../api/meta.ts";
import { pendingRequest, reconcileRequest, requestValue } from "../skeleton/annotations.ts";
import { mayHaveCreated } from "../skeleton/intents.ts";
import { type AppMemory, noReads, type Reads } from "./memory.ts";

/** Decides the reads from the App and memory alone: nothing is read that is not due. */
export function readsDue(app: App, memory: AppMemory, now: number): Reads {
  const deleting = app.metadata.deletionTimestamp !== undefined;
  const known = memory.external;
  const appId = app.status?.appId ?? known.app?.id ?? app.spec.appId;
  const pending = (app.status?.intents ?? []).filter((intent) => intent.state === "Pending");
  if (appId === undefined || known.gone) {
    return { ...noReads, lookup: mayHaveCreated(app.status, "createApp", memory) && !known.gone };
  }
  // Any other Pending intent (a move) is settled from a full read, before a deletion acts.
  if (pending.length > 0) return { ...noReads, app: true, status: true };
  const due = (at: number | undefined) => at !== undefined && at <= now;
  const status = known.status === undefined || due(memory.statusDueAt);
  // Once the stop this process asked for should be over, the delete is the look at the app.
  const stopSettled = known.stopSettlesAt !== undefined && known.stopSettlesAt <= now;
  if (deleting) return { ...noReads, status: known.status === undefined || (status && !stopSettled) };
  const generation = app.metadata.generation ?? 0;
  const request = pendingRequest(reconcileRequest(app), app.status?.lastHandledReconcileAt);
  const requested = request !== undefined && request !== memory.servedRequest;
  const oneOffPending =
    pendingRequest(requestValue(app, annotations.restartRequestedAt), app.status?.lastHandledRestartAt) !==
      undefined ||
    pendingRequest(requestValue(app, annotations.rebuildRequestedAt), app.status?.lastHandledRebuildAt) !==
      undefined;
  if (known.app === undefined && memory.driftDueAt === undefined) {
    const settled =
      app.status?.observedGeneration === generation &&
      isTrue(app.status.conditions, "Ready") &&
      !requested &&
      !oneOffPending;
    if (settled) return { ...noReads, spreadFirstRead: true };
  }
  const specChanged = memory.readGeneration !== generation;
  const driftDue = memory.driftDueAt !== undefined && memory.driftDueAt <= now;
  // Polled on its way to Ready, an App's drift check waits: its polls read it, and checks of many
  // Apps in progress at user priority would take the budget their polls need.
  const driftPostponed = driftDue && memory.statusDueAt !== undefined && inProgress(app, generation);
  const drift = driftDue && !driftPostponed;
  const full = known.app === undefined || specChanged || requested || drift;
  const buildId = known.app?.buildId ?? app.status?.build?.id;
  const buildUnfinished =
    known.build === undefined || known.build.id !== buildId || known.build.finishedAt === null;
  const build =
    app.spec.source !== undefined &&
    buildId !== undefined &&
    buildUnfinished &&
    (due(memory.buildDueAt) || known.build?.id !== buildId);
  return {
    ...noReads,
    app: full,
    status: full || status,
    build,
    background: known.app !== undefined && !specChanged && !requested && !inProgress(app, generation),
    driftPostponed,
  };
}

/** On its way to Ready at its generation: neither Ready there nor Stalled. */
function inProgress(app: App, generation: number): boolean {
  const conditions = app.status?.conditions;
  const ready = app.status?.observedGeneration === generation && isTrue(conditions, "Ready");
  return !ready && !isTrue(conditions, "Stalled");
}
