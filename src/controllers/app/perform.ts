import type { App } from "../../api/app.ts";
import { HostingError, isHostingError, type ResponseMetadata } from "../../hosting/index.ts";
import type { PollIntervals } from "../service/deps.ts";
import { quoteRequest } from "../skeleton/condition-changes.ts";
import { clientOf, type ObjectFact, type PerformContext } from "../skeleton/kind.ts";
import type { AppAction, AppFact } from "./actions.ts";
import { buildLogNote } from "./build-log.ts";
import { appAsCreated } from "./created.ts";
import type { AppKnowledge } from "./memory.ts";
import { formatSecretDigests } from "./secret-digest.ts";

export const doingForApp: Record<AppAction["type"], string> = {
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

const pastTense = { start: "Started", stop: "Stopped", restart: "Restarted" } as const;

/**
 * Carries out one action: a claim, or a call to the service, with an event for each
 * change. Yields what each answer taught; the plan made after it shows in status.
 */
export function performApp(polls: PollIntervals) {
  return async function* perform(
    action: AppAction,
    context: PerformContext<App, AppKnowledge>,
  ): AsyncGenerator<AppFact | ObjectFact> {
    const { deps, object, resource: app } = context;
    const event = (reason: string, note: string, metadata?: ResponseMetadata) =>
      deps.recorder.record(object, "Normal", reason, quoteRequest(metadata?.requestId, note), action.type);
    switch (action.type) {
      case "claim":
        yield { type: "claimed", request: action.request, value: action.value };
        // The echo is written only once claimed: a claim held back (a pause) leaves the request waiting.
        yield {
          type: "recorded",
          status:
            action.request === "restart"
              ? { lastHandledRestartAt: action.value }
              : { lastHandledRebuildAt: action.value },
        };
        return;
      case "reportBuildLog":
        deps.recorder.record(object, "Warning", "BuildLog", buildLogNote(action.buildId, action.tail));
        return;
    }
    const { knowledge } = context;
    const client = clientOf(context);
    const appId = knowledge.external.app?.id ?? app.status?.appId ?? "";
    const projectId = knowledge.external.app?.projectId ?? app.status?.projectId ?? "";
    switch (action.type) {
      case "create": {
        const created = await client.createApp(action.projectId, action.body, {
          idempotencyKey: action.idempotencyKey,
        });
        const at = deps.now();
        yield {
          type: "created",
          // The answer promises only the id (and start, buildId): the app is what was sent.
          app: appAsCreated(created, action.projectId, action.body),
          generation: app.metadata.generation ?? 0,
          appliedSecrets: secretsOf(knowledge),
          at,
          buildDueAt: created.buildId === undefined ? undefined : at + polls.buildingMs,
        };
        yield answered(created.$metadata);
        const replay = created.$metadata.replayed ? " (the service replayed an earlier create)" : "";
        event(
          "Created",
          `created app ${action.body.name} (${created.id}) in project ${action.projectId}${replay}`,
          created.$metadata,
        );
        return;
      }
      case "update": {
        const updated = await client.patchApp(projectId, appId, action.patch);
        const redeploys = action.patch.config !== undefined || action.patch.source !== undefined;
        yield {
          type: "updated",
          app: updated,
          patch: JSON.stringify(action.patch),
          at: deps.now(),
          ...(action.fields.includes("env") ? { appliedSecrets: secretsOf(knowledge) } : {}),
          ...(redeploys ? { redeploy: action.patch.source === undefined ? "provisioning" : "building" } : {}),
        };
        yield answered(updated.$metadata);
        const fields = action.fields.join(", ");
        if (action.drift) {
          deps.recorder.record(
            object,
            "Warning",
            "DriftReverted",
            quoteRequest(
              updated.$metadata.requestId,
              `${fields} changed outside berth; set back to the spec`,
            ),
            "update",
          );
        } else event("Updated", `updated ${fields}`, updated.$metadata);
        return;
      }
      case "start":
      case "stop":
      case "restart": {
        const at = deps.now();
        yield {
          type: "powerRequested",
          action: action.type,
          at,
          ...(action.type === "stop" ? { settlesAt: at + polls.stoppingMs } : {}),
        };
        const call = { start: client.startApp, stop: client.stopApp, restart: client.restartApp }[
          action.type
        ];
        const accepted = await call(projectId, appId);
        // A 202 promises no body: the state is known at the next status read.
        yield { type: "powerAccepted", action: action.type };
        yield answered(accepted);
        const why =
          action.type === "restart"
            ? ` as asked at ${action.requestedAt}`
            : action.type === "start" && action.drift
              ? " (it was stopped outside berth)"
              : "";
        event(pastTense[action.type], `${action.type} accepted${why}`, accepted);
        return;
      }
      case "triggerBuild": {
        const accepted = await client.triggerBuild(projectId, appId);
        yield { type: "rebuildAccepted" };
        yield answered(accepted);
        // The 202 promises no body; the new build is the app's buildId from now on.
        const read = await client.getApp(projectId, appId);
        yield { type: "buildStarted", app: read };
        event(
          "BuildTriggered",
          `build ${read.buildId ?? "(not listed yet)"} started as asked at ${action.requestedAt}`,
          accepted,
        );
        return;
      }
      case "delete": {
        try {
          const metadata = await client.deleteApp(projectId, appId);
          yield answered(metadata);
          event("Deleted", `deleted app ${appId}`, metadata);
        } catch (error) {
          if (
            isHostingError(error) &&
            error.code === "app_not_stopped" &&
            knowledge.external.status !== undefined
          ) {
            // Still stopping: the delete tried again a stop's time later is the next look at it.
            yield { type: "stillStopping", settlesAt: deps.now() + polls.stoppingMs };
          }
          if (!isHostingError(error) || error.code !== "not_found") throw error;
        }
        yield { type: "deleted" };
        return;
      }
      case "move": {
        try {
          const moved = await client.moveApp(action.from, appId, action.to);
          // Confirmed by a read in the new project, right after.
          yield { type: "moved", app: moved, at: deps.now() };
          yield answered(moved.$metadata);
          event(
            "Moved",
            `moved app ${appId} from project ${action.from} to project ${action.to}`,
            moved.$metadata,
          );
        } catch (error) {
          if (!isHostingError(error) || error.code !== "not_found") throw error;
          // Not in the old project any more: an attempt whose answer was lost (the client's own retry
          // after a dropped connection, too) may have moved it. The intent stays Pending, settled by a lookup.
          throw new HostingError({
            code: "outcome_unknown",
            kind: "uncertain",
            operation: error.operation,
            requestId: error.requestId,
            message: `app ${appId} is no longer in project ${action.from}: an earlier attempt of this move may have acted`,
          });
        }
        return;
      }
    }
  };
}

function answered(metadata: ResponseMetadata): ObjectFact {
  return { type: "answered", requestId: metadata.requestId };
}

function secretsOf(knowledge: AppKnowledge): string | undefined {
  return knowledge.desired === undefined
    ? knowledge.appliedSecrets
    : formatSecretDigests(knowledge.desired.env);
}
