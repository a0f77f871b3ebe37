import type { App } from "../../api/app.ts";
import { appNames, finalizer } from "../../api/meta.ts";
import {
  type CreateAppInput,
  type CreatedApp,
  isHostingError,
  type ResponseMetadata,
  type App as ServiceApp,
  type AppStatus as ServiceStatus,
} from "../../hosting/index.ts";
import { ensureFinalizer, type KubeObject, removeFinalizer } from "../../runtime/index.ts";
import { settleActionFailure } from "../shared/act-failure.ts";
import { type ControllerDeps, resourceTypeOf } from "../shared/deps.ts";
import { describeFailure, type Failure } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { countRefusal } from "../shared/memory.ts";
import type { AppAction } from "./actions.ts";
import { buildLogNote } from "./build-log.ts";
import type { AppMemory } from "./memory.ts";
import type { AppObserved } from "./observed.ts";
import { formatSecretDigests } from "./secret-digest.ts";

export const appType = resourceTypeOf(appNames);

export interface ActInput {
  deps: ControllerDeps;
  object: KubeObject;
  app: App;
  memory: AppMemory;
  observed: AppObserved;
  connection: Connection | undefined;
}

export interface ActResult {
  /** The object after finalizer changes; undefined once the finalizer is removed (it is going away). */
  object: KubeObject | undefined;
  failure: Failure | undefined;
  /** The service's status or build changed through a call: schedule their next reads from now. */
  statusChanged: boolean;
  buildChanged: boolean;
}

/**
 * Carries out the plan's actions in order, stopping at the first failure; every call's answer
 * updates what is known of the app (memory), so the status written afterwards reflects it. The only
 * writer: hosting calls, finalizers and events happen here (the status write follows in the reconciler).
 */
export async function actOnApp(input: ActInput, actions: readonly AppAction[]): Promise<ActResult> {
  const result: ActResult = {
    object: input.object,
    failure: undefined,
    statusChanged: false,
    buildChanged: false,
  };
  for (const action of actions) {
    try {
      await perform(input, action, result);
    } catch (error) {
      if (!isHostingError(error)) throw error;
      result.failure = describeFailure(error, doing(action));
      settleFailure(input, action, result.failure);
      return result;
    }
  }
  return result;
}

async function perform(input: ActInput, action: AppAction, result: ActResult): Promise<void> {
  const { deps, memory, observed, app } = input;
  const external = memory.external;
  const event = (reason: string, note: string) =>
    deps.recorder.record(result.object ?? input.object, "Normal", reason, note, action.type);
  const quote = (metadata: ResponseMetadata) => {
    if (metadata.requestId !== undefined) observed.requestId = metadata.requestId;
    return metadata.requestId === undefined ? "" : ` (request ${metadata.requestId})`;
  };
  switch (action.type) {
    case "addFinalizer":
      result.object = await ensureFinalizer(deps.kube, appType, input.object, finalizer);
      return;
    case "removeFinalizer":
      await removeFinalizer(deps.kube, appType, result.object ?? input.object, finalizer);
      result.object = undefined;
      if (app.spec.deletionPolicy === "Orphan")
        event("Orphaned", "left the app at the service (deletionPolicy: Orphan)");
      return;
    case "claim":
      memory.claims[action.request] = action.value;
      return;
    case "reportBuildLog":
      deps.recorder.record(
        result.object ?? input.object,
        "Warning",
        "BuildLog",
        buildLogNote(action.buildId, action.tail),
      );
      return;
  }
  const client = input.connection?.client;
  if (client === undefined) throw new TypeError(`${action.type} needs a connection to the service`);
  const appId = external.app?.id ?? app.status?.appId ?? "";
  const projectId = external.app?.projectId ?? app.status?.projectId ?? "";
  switch (action.type) {
    case "create": {
      const created = await client.createApp(action.projectId, action.body, {
        idempotencyKey: action.idempotencyKey,
      });
      // The answer promises only the id (and start, buildId): the app is what was sent.
      external.app = appAsCreated(created, action.projectId, action.body);
      external.gone = false;
      external.status = statusAfterCreate(external.app);
      external.build = undefined;
      memory.uncertainCreate = false;
      memory.readGeneration = app.metadata.generation ?? 0;
      memory.appliedSecrets = secretsOf(observed);
      memory.buildDueAt =
        created.buildId === undefined ? undefined : deps.now() + deps.settings.polls.buildingMs;
      external.startRequestedAt = deps.now();
      result.statusChanged = true;
      const replay = created.$metadata.replayed ? " (the service replayed an earlier create)" : "";
      event(
        "Created",
        `created app ${action.body.name} (${created.id}) in project ${action.projectId}${replay}${quote(created.$metadata)}`,
      );
      return;
    }
    case "update": {
      const updated = await client.patchApp(projectId, appId, action.patch);
      external.app = updated;
      external.lastUpdate = { patch: JSON.stringify(action.patch), at: deps.now() };
      if (action.fields.includes("env")) memory.appliedSecrets = secretsOf(observed);
      const redeploys = action.patch.config !== undefined || action.patch.source !== undefined;
      if (redeploys && external.status?.targetState === "running") {
        external.status = {
          ...external.status,
          state: action.patch.source === undefined ? "provisioning" : "building",
        };
        result.statusChanged = true;
      }
      const fields = action.fields.join(", ");
      if (action.drift) {
        deps.recorder.record(
          result.object ?? input.object,
          "Warning",
          "DriftReverted",
          `${fields} changed outside berth; set back to the spec${quote(updated.$metadata)}`,
          "update",
        );
      } else event("Updated", `updated ${fields}${quote(updated.$metadata)}`);
      return;
    }
    case "start":
    case "stop":
    case "restart": {
      const call =
        action.type === "start"
          ? client.startApp
          : action.type === "stop"
            ? client.stopApp
            : client.restartApp;
      if (action.type !== "stop") external.startRequestedAt = deps.now();
      else external.stopSettlesAt = deps.now() + deps.settings.polls.stoppingMs;
      const accepted = await call(projectId, appId);
      // A 202 promises no body: the state is known at the next status read.
      const state = action.type === "stop" ? "stopping" : "requested";
      external.status = {
        ...(external.status ?? emptyStatus()),
        state,
        targetState: action.type === "stop" ? "stopped" : "running",
      };
      result.statusChanged = true;
      if (action.type === "restart") memory.claims.restart = undefined;
      const why =
        action.type === "restart"
          ? ` as asked at ${action.requestedAt}`
          : action.type === "start" && action.drift
            ? " (it was stopped outside berth)"
            : "";
      event(pastTense[action.type], `${action.type} accepted${why}${quote(accepted)}`);
      return;
    }
    case "triggerBuild": {
      const accepted = await client.triggerBuild(projectId, appId);
      memory.claims.rebuild = undefined;
      // The 202 promises no body; the new build is the app's buildId from now on.
      const read = await client.getApp(projectId, appId);
      external.app = read;
      external.build = read.buildId === undefined ? undefined : { id: read.buildId, state: "queued" };
      if (external.status?.targetState === "running")
        external.status = { ...external.status, state: "building" };
      memory.buildDueAt = undefined;
      result.statusChanged = true;
      result.buildChanged = true;
      event(
        "BuildTriggered",
        `build ${read.buildId ?? "(not listed yet)"} started as asked at ${action.requestedAt}${quote(accepted)}`,
      );
      return;
    }
    case "delete": {
      try {
        const metadata = await client.deleteApp(projectId, appId);
        event("Deleted", `deleted app ${appId}${quote(metadata)}`);
      } catch (error) {
        if (isHostingError(error) && error.code === "app_not_stopped" && external.status !== undefined) {
          // Still stopping: the delete tried again a stop's time later is the next look at it.
          external.status = { ...external.status, state: "stopping" };
          external.stopSettlesAt = deps.now() + deps.settings.polls.stoppingMs;
          input.memory.statusDueAt = external.stopSettlesAt;
        }
        if (!isHostingError(error) || error.code !== "not_found") throw error;
      }
      external.gone = true;
      return;
    }
    case "move": {
      try {
        const moved = await client.moveApp(action.from, appId, action.to);
        external.app = moved;
        event(
          "Moved",
          `moved app ${appId} from project ${action.from} to project ${action.to}${quote(moved.$metadata)}`,
        );
      } catch (error) {
        if (!isHostingError(error) || error.code !== "not_found") throw error;
        // Not in the old project any more: a move whose answer was lost may have acted. Read it again.
        external.app = undefined;
        input.memory.readGeneration = undefined;
      }
      // Confirmed by a read in the new project, right after.
      input.memory.statusDueAt = deps.now();
      return;
    }
  }
}

const pastTense = { start: "Started", stop: "Stopped", restart: "Restarted" } as const;

/** What a failure changes in memory, and what every failure does (see `settleActionFailure`). */
function settleFailure(input: ActInput, action: AppAction, failure: Failure): void {
  const { memory } = input;
  if (action.type === "create" && failure.uncertain) memory.uncertainCreate = true;
  if (action.type === "create") countRefusal(memory, failure);
  // Not idempotent: give up the request unless the service surely did not act (then retry it).
  if (
    (action.type === "restart" || action.type === "triggerBuild") &&
    (failure.stalled || failure.uncertain)
  ) {
    memory.claims[action.type === "restart" ? "restart" : "rebuild"] = undefined;
  }
  settleActionFailure(input, action.type, failure);
}

function doing(action: AppAction): string {
  const words: Record<AppAction["type"], string> = {
    addFinalizer: "adding the finalizer",
    removeFinalizer: "removing the finalizer",
    claim: "accepting the request",
    create: "creating the app",
    update: "updating the app",
    start: "starting the app",
    stop: "stopping the app",
    restart: "restarting the app",
    triggerBuild: "triggering a build",
    delete: "deleting the app",
    move: "moving the app",
    reportBuildLog: "reporting the build log",
  };
  return words[action.type];
}

function secretsOf(observed: AppObserved): string | undefined {
  return observed.desired === undefined ? observed.appliedSecrets : formatSecretDigests(observed.desired.env);
}

function emptyStatus(): ServiceStatus {
  return { state: "requested", targetState: "running", nodes: [], errors: [], endpoints: [] };
}

/** The app the service holds after a create: the request as sent, the answer's id, start and build. */
function appAsCreated(created: CreatedApp, projectId: string, body: CreateAppInput): ServiceApp {
  const { config } = body;
  return {
    id: created.id,
    projectId,
    name: body.name,
    config: {
      ...(config.image === undefined ? {} : { image: config.image }),
      ports: config.ports ?? [],
      instances: config.instances ?? { min: 1, max: 1 },
      env: (config.env ?? []).map((e) => ({
        name: e.name,
        value: e.secret ? null : e.value,
        secret: e.secret === true,
      })),
      volumes: config.volumes ?? [],
      hardware: config.hardware ?? {},
      placement: config.placement ?? {},
      gridPriorities: config.gridPriorities ?? {},
      ...(config.command === undefined || config.command === null ? {} : { command: config.command }),
    },
    ...(body.source === undefined ? {} : { source: { ...body.source } }),
    ...(created.buildId === undefined ? {} : { buildId: created.buildId }),
    ...(created.start === undefined ? {} : { start: created.start }),
  };
}

/** The create answer's `start.state` stands for the status until the first read. */
function statusAfterCreate(app: ServiceApp): ServiceStatus {
  const start = app.start?.state ?? "requested";
  const state = start === "failed" ? "start_blocked" : start;
  return {
    ...emptyStatus(),
    state,
    endpoints: app.config.ports.map(({ port, protocol }) => ({ port, protocol, address: null })),
  };
}
