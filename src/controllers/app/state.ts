import type { App, AppStatus } from "../../api/app.ts";
import {
  type ConditionChange,
  type ConditionInput,
  ConditionType,
  ready,
  reconciling,
  stalled,
} from "../../api/conditions.ts";
import { annotations } from "../../api/meta.ts";
import type { AppStatus as ServiceStatus } from "../../hosting/index.ts";
import type { PollIntervals } from "../service/deps.ts";
import { Reason } from "../service/reasons.ts";
import type { ExternalApp } from "./memory.ts";

/** The conditions the service's state calls for, and when to look again. */
export interface StateView {
  change: ConditionChange;
  /** Read the app's status again after this long; undefined: only the periodic drift check. */
  statusPollMs: number | undefined;
  /** Read the build again after this long (following its pollAfterSec). */
  buildPollMs: number | undefined;
}

/** Status fields that mirror the service's app. */
export function externalFields(external: ExternalApp): Partial<AppStatus> {
  const fields: Partial<AppStatus> = {};
  const { app, status, build, buildLog } = external;
  if (app !== undefined) {
    fields.appId = app.id;
    fields.projectId = app.projectId;
  }
  if (status !== undefined) {
    fields.state = status.state;
    fields.targetState = status.targetState;
    fields.endpoints = status.endpoints.map(({ port, protocol, address }) =>
      address === null ? { port, protocol } : { port, protocol, address },
    );
    fields.url = firstAddress(status);
    fields.nodes = {
      ready: status.nodes.filter((n) => n.state === "running").length,
      total: status.nodes.length,
    };
    fields.errors =
      status.errors.length === 0
        ? undefined
        : status.errors
            .slice(-20)
            .reverse()
            .map(({ code, message, at }) => ({ code, message, at }));
  }
  const buildId = build?.id ?? app?.buildId;
  if (buildId !== undefined) {
    fields.build = {
      id: buildId,
      ...(build?.id === buildId ? { state: build.state } : {}),
      ...(build?.id === buildId && build.failedStep !== null ? { failedStep: build.failedStep } : {}),
      ...(buildLog?.buildId === buildId && buildLog.tail !== undefined ? { logTail: buildLog.tail } : {}),
    };
  }
  return fields;
}

/** A ready endpoint is one with an address. */
export function firstAddress(status: ServiceStatus): string | undefined {
  return status.endpoints.find((e) => e.address !== null)?.address ?? undefined;
}

/** Conditions for the service's state of an app berth knows exists. `quote` appends the request ID. */
export function describeState(
  app: App,
  external: ExternalApp,
  polls: PollIntervals,
  quote: (message: string) => string,
): StateView {
  const generation = app.metadata.generation ?? 0;
  const { status, build } = external;
  const wait = (reason: string, message: string, statusPollMs?: number, buildPollMs?: number): StateView => ({
    change: reconciling(reason, quote(message), generation),
    statusPollMs,
    buildPollMs,
  });
  const stop = (reason: string, message: string, statusPollMs?: number): StateView => ({
    change: stalled(reason, quote(message), generation),
    statusPollMs,
    buildPollMs: undefined,
  });
  const done = (message: string): StateView => ({
    change: ready(Reason.Succeeded, quote(message), generation),
    statusPollMs: undefined,
    buildPollMs: undefined,
  });
  if (status === undefined) return wait(Reason.Progressing, "reading the app's status", 0);
  const lastError = status.errors.at(-1);
  if (app.spec.stopped) {
    if (status.state === "stopped") return done("the app is stopped, as spec.stopped asks");
    return wait(Reason.Progressing, `stopping the app (state ${status.state})`, polls.stoppingMs);
  }
  switch (status.state) {
    case "requested":
    case "provisioning":
      return wait(Reason.Progressing, `the app is starting (state ${status.state})`, polls.startingMs);
    case "building": {
      const finished = build !== undefined && (build.state === "succeeded" || build.state === "failed");
      if (build !== undefined && !finished) {
        const after = typeof build.pollAfterSec === "number" ? build.pollAfterSec * 1000 : polls.buildingMs;
        return wait(Reason.Building, `build ${build.id} is ${build.state}`, undefined, after);
      }
      // A failed build has already failed the app: read it now; a succeeded one starts it.
      return wait(Reason.Building, "the app is building", build?.state === "failed" ? 0 : polls.startingMs);
    }
    case "build_failed": {
      const id = build?.id ?? external.app?.buildId ?? "(unknown)";
      const step = build?.failedStep ? ` at step ${build.failedStep}` : "";
      return stop(
        Reason.BuildFailed,
        `build ${id} failed${step}; ${buildLogHint(external, id)}, fix the source, then change the spec ` +
          `or set the ${annotations.rebuildRequestedAt} annotation`,
      );
    }
    case "deferred":
      return stop(
        Reason.InsufficientBalance,
        `the service deferred the app: ${lastError?.message ?? "the account balance is used up; add credits"}`,
        polls.waitingMs,
      );
    case "start_blocked":
      return stop(
        Reason.StartBlocked,
        `the service cannot start the app: ${lastError?.message ?? "placement cannot be met"}` +
          (lastError?.code === "container_exited" ? "; check spec.command and the app's logs" : ""),
        polls.waitingMs,
      );
    case "running": {
      const url = firstAddress(status);
      if (url !== undefined) return done(`the app is running at ${url}`);
      if (status.endpoints.length === 0) return done("the app is running");
      return wait(Reason.Progressing, "the app is running; waiting for an endpoint address", polls.wiringMs);
    }
    case "stopping":
    case "stopped":
      return wait(Reason.Progressing, `starting the app (state ${status.state})`, polls.startingMs);
    default:
      // A state the docs don't name (the service adds some): in progress, read again soon.
      return wait(Reason.Progressing, `the service reports state ${status.state}`, polls.startingMs);
  }
}

/** Built (repository apps) and EndpointReady (apps with ports), set beside the summary conditions. */
export function domainConditions(app: App, external: ExternalApp): ConditionChange {
  const generation = app.metadata.generation ?? 0;
  const set: ConditionInput[] = [];
  const remove: string[] = [];
  const condition = (type: string, status: ConditionInput["status"], reason: string, message: string) =>
    set.push({ type, status, reason, message, observedGeneration: generation });
  const { build, status } = external;
  if (app.spec.source === undefined) remove.push(ConditionType.Built);
  else if (build?.state === "succeeded")
    condition(ConditionType.Built, "True", Reason.Succeeded, `build ${build.id} succeeded`);
  else if (build?.state === "failed" || status?.state === "build_failed")
    condition(ConditionType.Built, "False", Reason.BuildFailed, `build ${build?.id ?? ""} failed`.trim());
  else if (build !== undefined || status?.state === "building")
    condition(ConditionType.Built, "Unknown", Reason.Building, "the build is in progress");
  const url = status === undefined ? undefined : firstAddress(status);
  if (app.spec.stopped || (app.spec.ports ?? []).length === 0) remove.push(ConditionType.EndpointReady);
  else if (url !== undefined)
    condition(ConditionType.EndpointReady, "True", Reason.Succeeded, `serving at ${url}`);
  else condition(ConditionType.EndpointReady, "False", Reason.Progressing, "no endpoint has an address yet");
  return { set, remove };
}

/** Where the failed build's log is to be read: status.build.logTail once berth has it. */
function buildLogHint({ buildLog }: ExternalApp, buildId: string): string {
  if (buildLog?.buildId === buildId && buildLog.tail !== undefined)
    return "the failed step's last lines are in status.build.logTail and a BuildLog event";
  const why =
    buildLog?.buildId === buildId && buildLog.unreadable !== undefined ? ` (${buildLog.unreadable})` : "";
  return `read its logs (GET /builds/${buildId}/logs)${why}`;
}
