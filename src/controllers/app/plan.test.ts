import { describe, expect, it } from "vitest";
import type { App } from "../../api/app.ts";
import { getCondition } from "../../api/conditions.ts";
import { stepsOf } from "../skeleton/cleanup.test-support.ts";
import { planFor } from "../skeleton/cleanup.ts";
import {
  anApp,
  appliedDigest,
  build,
  desiredOf,
  me,
  now,
  observed,
  polls,
  projectId,
  serviceApp,
  serviceStatus,
} from "./builders.test-support.ts";
import type { AppObserved } from "./memory.ts";
import { appPlans } from "./plan.ts";
import type { AppPlan } from "./plan-common.ts";

function plan(app: App, seen: AppObserved): AppPlan {
  return planFor(appPlans(polls), app, seen, now);
}

function types(result: AppPlan): string[] {
  return stepsOf(result);
}

function conditionOf(result: AppPlan, type: string) {
  const c = getCondition(result.status.conditions, type);
  return c === undefined ? undefined : `${c.status}/${c.reason}`;
}

/** An App the operator created before, with the service's copy as `state` says. */
function existing(
  spec: Parameters<typeof anApp>[0] = {},
  state: Parameters<typeof serviceStatus>[0] = "running",
) {
  const app = anApp(spec, { status: { appId: "b".repeat(24), projectId, observedGeneration: 1 } });
  const desired = desiredOf(app);
  return { app, seen: observed(app, { app: serviceApp(desired), status: serviceStatus(state) }) };
}

describe("planApp: creating", () => {
  it.each([
    { case: "finalizer present", finalizers: ["berth.dev/finalizer"], actions: ["create"] },
    { case: "no finalizer yet", finalizers: [], actions: ["addFinalizer", "create"] },
  ])("$case → $actions, Reconciling", ({ finalizers, actions }) => {
    const app = anApp({}, { metadata: { finalizers } });
    const result = plan(app, observed(app));
    expect(types(result)).toEqual(actions);
    expect(conditionOf(result, "Reconciling")).toBe("True/Progressing");
    expect(conditionOf(result, "Ready")).toBe("Unknown/Progressing");
  });

  it("derives the idempotency key from the UID, the operation and the arguments", () => {
    const key = (app: App) => {
      const action = plan(app, observed(app)).actions.find((a) => a.type === "create");
      return action?.type === "create" ? action.idempotencyKey : undefined;
    };
    const first = key(anApp());
    expect(first).toMatch(/^createApp\.uid-1\.[0-9a-f]{40}$/);
    expect(key(anApp())).toBe(first);
    expect(key(anApp({ image: "nginx:1.28" }))).not.toBe(first);
    expect(key(anApp({}, { metadata: { uid: "uid-2" } }))).not.toBe(first);
  });

  it("never turns an adoption into a creation: an adopted app that is gone is ExternalNotFound", () => {
    const app = anApp({ appId: "c".repeat(24) }, { status: { appId: "c".repeat(24), projectId } });
    const result = plan(app, observed(app, { gone: true }));
    expect(types(result)).toEqual([]);
    expect(conditionOf(result, "Stalled")).toBe("True/ExternalNotFound");
  });

  it.each([
    {
      case: "the same PATCH accepted a moment ago",
      sentAgo: 1000,
      same: true,
      actions: [],
      stalled: "True/UpdateNotApplied",
    },
    {
      case: "the same PATCH long ago (a drift revert)",
      sentAgo: polls.waitingMs,
      same: true,
      actions: ["update"],
      stalled: undefined,
    },
    {
      case: "another PATCH a moment ago",
      sentAgo: 1000,
      same: false,
      actions: ["update"],
      stalled: undefined,
    },
  ])("loop guard: $case → $actions", ({ sentAgo, same, actions, stalled }) => {
    const { app, seen } = existing({ image: "nginx:1.28" });
    seen.external.app = serviceApp(desiredOf(anApp()));
    const patch = same ? { config: { image: "nginx:1.28" } } : { config: { image: "nginx:1.29" } };
    seen.external.lastUpdate = { patch: JSON.stringify(patch), at: now.getTime() - sentAgo };
    const result = plan(app, seen);
    expect(types(result)).toEqual(actions);
    expect(conditionOf(result, "Stalled")).toBe(stalled);
  });

  it("compares names as the service stores them (trimmed): a YAML block scalar's newline is no change", () => {
    const { app, seen } = existing({ displayName: "web app\n" });
    seen.external.app = { ...serviceApp(desiredOf(app)), name: "web app" };
    expect(types(plan(app, seen))).toEqual([]);
  });

  it("moves to a new key after a definite refusal, so a refusal the service keeps 24 h doesn't replay", () => {
    const app = anApp();
    const keyAfter = (refusedCreates: number) => {
      const action = plan(app, { ...observed(app), refusedCreates }).actions.find((a) => a.type === "create");
      return action?.type === "create" ? action.idempotencyKey : undefined;
    };
    expect(keyAfter(0)).toBe(keyAfter(0));
    expect(keyAfter(1)).not.toBe(keyAfter(0));
    expect(keyAfter(2)).not.toBe(keyAfter(1));
  });

  it("recreates an app that vanished at the service with a key of its own", () => {
    const app = anApp({}, { status: { appId: "b".repeat(24), projectId } });
    const result = plan(app, observed(app, { gone: true }));
    const fresh = plan(anApp(), observed(anApp()));
    expect(types(result)).toEqual(["create"]);
    expect(result.actions[0]).not.toEqual(fresh.actions[0]);
    expect(getCondition(result.status.conditions, "Reconciling")?.message).toContain("recreating");
  });

  it.each([
    {
      case: "no compute:spend",
      scopes: ["apps:write"],
      pinned: [],
      reason: "MissingScopes",
      text: "compute:spend",
    },
    {
      case: "read-only key",
      scopes: ["apps:read"],
      pinned: [],
      reason: "MissingScopes",
      text: "apps:write, compute:spend",
    },
    {
      case: "pinned elsewhere",
      scopes: ["*"],
      pinned: ["c".repeat(24)],
      reason: "KeyProjectRestricted",
      text: "c".repeat(24),
    },
  ])("$case → Stalled $reason, no call", ({ scopes, pinned, reason, text }) => {
    const app = anApp();
    const result = plan(app, observed(app, {}, { me: me(scopes, pinned) }));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Stalled")).toBe(`True/${reason}`);
    expect(conditionOf(result, "Ready")).toBe(`False/${reason}`);
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain(text);
    expect(result.stalled).toBe(true);
  });

  it("[Observe] with a read-only key is not refused: the calls it would make are held back, not sent", () => {
    const app = anApp({ managementPolicies: ["Observe"] });
    const result = plan(app, observed(app, {}, { me: me(["apps:read"], []) }));
    expect(result.stalled).toBe(false);
    // The skeleton's gate holds the create (skeleton/policies.ts); the plan just says what it would do.
    expect(result.actions.map((a) => a.type)).toEqual(["create"]);
  });

  it("does nothing for an app known from status but not read yet", () => {
    const app = anApp({}, { status: { appId: "b".repeat(24), projectId, observedGeneration: 1 } });
    expect(plan(app, observed(app)).actions).toEqual([]);
  });
});

describe("planApp: the service's state", () => {
  const url = "https://web-bbbbbbbb.apps.sim";
  it.each([
    {
      state: "requested",
      ready: "Unknown/Progressing",
      reconciling: "True/Progressing",
      stalled: undefined,
      poll: polls.startingMs,
    },
    {
      state: "provisioning",
      ready: "Unknown/Progressing",
      reconciling: "True/Progressing",
      stalled: undefined,
      poll: polls.startingMs,
    },
    {
      state: "running",
      ready: "True/Succeeded",
      reconciling: undefined,
      stalled: undefined,
      poll: undefined,
    },
    {
      state: "deferred",
      ready: "False/InsufficientBalance",
      reconciling: undefined,
      stalled: "True/InsufficientBalance",
      poll: polls.waitingMs,
    },
    {
      state: "start_blocked",
      ready: "False/StartBlocked",
      reconciling: undefined,
      stalled: "True/StartBlocked",
      poll: polls.waitingMs,
    },
    {
      state: "stopping",
      ready: "Unknown/Progressing",
      reconciling: "True/Progressing",
      stalled: undefined,
      poll: polls.startingMs,
    },
  ] as const)("$state → Ready $ready", ({ state, ready, reconciling, stalled, poll }) => {
    const { app, seen } = existing({}, state);
    const result = plan(app, seen);
    expect(conditionOf(result, "Ready")).toBe(ready);
    expect(conditionOf(result, "Reconciling")).toBe(reconciling);
    expect(conditionOf(result, "Stalled")).toBe(stalled);
    expect(result.statusPollMs).toBe(poll);
    expect(result.status.state).toBe(state);
  });

  it("is Ready with the first endpoint that has an address as url", () => {
    const { app, seen } = existing();
    const result = plan(app, seen);
    expect(result.status.url).toBe(url);
    expect(result.status.endpoints).toEqual([{ port: 80, protocol: "http80_load_balancer", address: url }]);
    expect(result.status.nodes).toEqual({ ready: 1, total: 1 });
    expect(conditionOf(result, "EndpointReady")).toBe("True/Succeeded");
    expect(getCondition(result.status.conditions, "Ready")?.message).toContain("req_1");
  });

  it("waits (Reconciling) while running without an endpoint address", () => {
    const { app, seen } = existing();
    seen.external.status = serviceStatus("running", {
      endpoints: [{ port: 80, protocol: "http80_load_balancer", address: null }],
    });
    const result = plan(app, seen);
    expect(conditionOf(result, "Ready")).toBe("Unknown/Progressing");
    expect(conditionOf(result, "EndpointReady")).toBe("False/Progressing");
    expect(result.statusPollMs).toBe(polls.wiringMs);
    expect(result.status.url).toBeUndefined();
  });

  it.each([
    { state: "deferred", asked: undefined, change: false, actions: ["start"] },
    { state: "start_blocked", asked: undefined, change: false, actions: ["start"] },
    { state: "deferred", asked: now.getTime() - 1000, change: false, actions: [] },
    { state: "deferred", asked: now.getTime() - polls.waitingMs, change: false, actions: ["start"] },
    { state: "start_blocked", asked: now.getTime() - 1000, change: true, actions: ["update", "start"] },
    { state: "running", asked: undefined, change: false, actions: [] },
    { state: "migrating", asked: undefined, change: false, actions: [] },
  ] as const)(
    "$state, last start $asked, config change $change → $actions (nothing heals by itself)",
    ({ state, asked, change, actions }) => {
      const { app, seen } = existing(change ? { image: "nginx:1.28" } : {}, state as "running");
      if (change) seen.external.app = serviceApp(desiredOf(existing().app));
      seen.external.startRequestedAt = asked;
      expect(types(plan(app, seen))).toEqual(actions);
    },
  );

  it("a state the docs don't name is in progress: Reconciling, read again soon, never Stalled", () => {
    const { app, seen } = existing({}, "pending_capacity" as "running");
    const result = plan(app, seen);
    expect(conditionOf(result, "Reconciling")).toBe("True/Progressing");
    expect(conditionOf(result, "Stalled")).toBeUndefined();
    expect(result.statusPollMs).toBe(polls.startingMs);
  });

  it("quotes the service's error for start_blocked and deferred", () => {
    const { app, seen } = existing({}, "start_blocked");
    seen.external.status = serviceStatus("start_blocked", {
      errors: [
        { code: "no_grid_capacity", message: "no running server in any grid", at: "2030-01-01T00:00:00Z" },
      ],
    });
    const result = plan(app, seen);
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain(
      "no running server in any grid",
    );
    expect(result.status.errors).toEqual([
      { code: "no_grid_capacity", message: "no running server in any grid", at: "2030-01-01T00:00:00Z" },
    ]);
  });

  describe("repository apps", () => {
    const source = { provider: "github", repository: "example/web", branch: "main" };
    const repo = (state: Parameters<typeof serviceStatus>[0], ofBuild?: ReturnType<typeof build>) => {
      const { app, seen } = existing({ image: undefined, source }, state);
      seen.external.build = ofBuild;
      return { app, seen };
    };

    it("polls the build by its pollAfterSec while it runs", () => {
      const { app, seen } = repo("building", build("running", { pollAfterSec: 3 }));
      const result = plan(app, seen);
      expect(conditionOf(result, "Reconciling")).toBe("True/Building");
      expect(conditionOf(result, "Built")).toBe("Unknown/Building");
      expect(result.buildPollMs).toBe(3000);
      expect(result.statusPollMs).toBeUndefined();
      expect(result.status.build).toEqual({ id: "bld_1", state: "running" });
    });

    it("reads the app status once the build succeeded", () => {
      const { app, seen } = repo("building", build("succeeded"));
      const result = plan(app, seen);
      expect(conditionOf(result, "Built")).toBe("True/Succeeded");
      expect(result.statusPollMs).toBe(polls.startingMs);
    });

    it("is Stalled BuildFailed with the step and where to read the logs", () => {
      const { app, seen } = repo("build_failed", build("failed"));
      const result = plan(app, seen);
      expect(conditionOf(result, "Stalled")).toBe("True/BuildFailed");
      expect(conditionOf(result, "Built")).toBe("False/BuildFailed");
      const message = getCondition(result.status.conditions, "Stalled")?.message ?? "";
      expect(message).toContain("bld_1");
      expect(message).toContain("step install");
      expect(message).toContain("/builds/bld_1/logs");
      expect(result.status.build).toEqual({ id: "bld_1", state: "failed", failedStep: "install" });
      expect(result.actions).toEqual([]);
    });

    it.each([
      [
        "a tail learned anew is shown and reported once",
        undefined,
        ["reportBuildLog"],
        "status.build.logTail",
      ],
      ["a tail already in status is not reported again", "ERROR: boom", [], "status.build.logTail"],
    ])("%s", (_name, recorded, actions, hint) => {
      const { app, seen } = repo("build_failed", build("failed"));
      seen.external.buildLog = { buildId: "bld_1", tail: "ERROR: boom" };
      const withStatus = {
        ...app,
        status: {
          ...app.status,
          build: { id: "bld_1", ...(recorded === undefined ? {} : { logTail: recorded }) },
        },
      };
      const result = plan(withStatus, seen);
      expect(result.status.build?.logTail).toBe("ERROR: boom");
      expect(result.actions.map((a) => a.type)).toEqual(actions);
      expect(getCondition(result.status.conditions, "Stalled")?.message).toContain(hint);
    });

    it("says why the log can't be shown, and drops an older build's tail", () => {
      const { app, seen } = repo("build_failed", build("failed"));
      seen.external.buildLog = { buildId: "bld_1", unreadable: "the API key lacks monitoring:read" };
      const withStatus = { ...app, status: { ...app.status, build: { id: "bld_0", logTail: "old" } } };
      const result = plan(withStatus, seen);
      expect(result.status.build?.logTail).toBeUndefined();
      expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("monitoring:read");
      expect(result.actions).toEqual([]);
    });
  });
});

describe("planApp: converging", () => {
  it.each([
    { case: "stopped: true while running", spec: { stopped: true }, state: "running", actions: ["stop"] },
    { case: "stopped: true and stopped", spec: { stopped: true }, state: "stopped", actions: [] },
    { case: "stopped: false and stopped", spec: {}, state: "stopped", actions: ["start"] },
    { case: "running as asked", spec: {}, state: "running", actions: [] },
  ] as const)("$case → $actions", ({ spec, state, actions }) => {
    const { app, seen } = existing(spec, state);
    expect(types(plan(app, seen))).toEqual(actions);
  });

  it("is Ready when stopped as spec.stopped asks", () => {
    const { app, seen } = existing({ stopped: true }, "stopped");
    const result = plan(app, seen);
    expect(conditionOf(result, "Ready")).toBe("True/Succeeded");
    expect(conditionOf(result, "EndpointReady")).toBeUndefined();
  });

  it("PATCHes only what differs, with the instance bounds together", () => {
    const { app, seen } = existing({
      ports: [{ port: 8080, protocol: "http80_load_balancer" }],
      instances: { min: 2, max: 4 },
      env: [{ name: "MODE", value: "prod" }],
    });
    seen.external.app = serviceApp(desiredOf(anApp()));
    const result = plan(app, seen);
    expect(result.actions).toEqual([
      {
        type: "update",
        fields: ["ports", "instances", "env"],
        patch: {
          config: {
            ports: [{ port: 8080, protocol: "http80_load_balancer" }],
            instances: { min: 2, max: 4 },
            env: [{ name: "MODE", value: "prod", secret: false }],
          },
        },
        drift: false,
      },
    ]);
  });

  it("sends an update that may need compute:spend even when the key lacks it (the service decides)", () => {
    const { app, seen } = existing({ instances: { min: 2, max: 2 } });
    seen.external.app = serviceApp(desiredOf(anApp()));
    seen.me = me(["apps:write"]);
    expect(types(plan(app, seen))).toEqual(["update"]);
  });

  describe("secret env values", () => {
    const spec = {
      env: [
        { name: "DB", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
        { name: "MODE", value: "prod" },
      ],
    };
    const setup = (secret: string, applied: string, mode = "prod") => {
      const app = anApp(spec, { status: { appId: "b".repeat(24), projectId, secretDigest: applied } });
      const desired = desiredOf(app, { "db/url": secret });
      const service = serviceApp(desired, {
        env: [
          { name: "DB", value: null, secret: true },
          { name: "MODE", value: mode, secret: false },
        ],
      });
      return { app, seen: observed(app, { app: service, status: serviceStatus("running") }, { desired }) };
    };

    it("sends nothing while the Secret's digest matches the applied one", () => {
      const { app, seen } = setup("postgres://a", appliedDigest("DB", "postgres://a"));
      const result = plan(app, seen);
      expect(result.actions).toEqual([]);
      expect(result.status.secretDigest).toBe(appliedDigest("DB", "postgres://a"));
    });

    it("sends the new value when the Secret changed", () => {
      const { app, seen } = setup("postgres://b", appliedDigest("DB", "postgres://a"));
      const [update] = plan(app, seen).actions;
      expect(update).toMatchObject({
        type: "update",
        fields: ["env"],
        patch: {
          config: {
            env: [
              { name: "DB", value: "postgres://b", secret: true },
              { name: "MODE", value: "prod", secret: false },
            ],
          },
        },
      });
    });

    it("sends null for an unchanged secret when another variable changed", () => {
      const { app, seen } = setup("postgres://a", appliedDigest("DB", "postgres://a"), "dev");
      const [update] = plan(app, seen).actions;
      expect(update).toMatchObject({
        patch: {
          config: {
            env: [
              { name: "DB", value: null, secret: true },
              { name: "MODE", value: "prod", secret: false },
            ],
          },
        },
      });
    });
  });

  it("calls a difference drift when the spec did not change since it was applied", () => {
    const { app: first, seen } = existing();
    const appliedHash = plan(first, seen).status.appliedHash;
    const app = anApp(
      {},
      { status: { appId: "b".repeat(24), projectId, observedGeneration: 1, appliedHash } },
    );
    seen.external.app = serviceApp(desiredOf(app), { ports: [{ port: 81, protocol: "tcp" }] });
    const [update] = plan(app, seen).actions;
    expect(update).toMatchObject({ type: "update", fields: ["ports"], drift: true });
  });

  describe("restart and rebuild annotations", () => {
    const annotated = (
      key: string,
      value: string,
      status: Partial<NonNullable<App["status"]>> = {},
      spec = {},
    ) =>
      anApp(spec, {
        metadata: { annotations: { [key]: value } },
        status: { appId: "b".repeat(24), projectId, ...status },
      });
    const withService = (app: App, claims = {}) => {
      const seen = observed(app, { app: serviceApp(desiredOf(app)), status: serviceStatus("running") });
      seen.claims = claims;
      return seen;
    };

    it("first claims a new restart request, without calling (the claim records the echo)", () => {
      const app = annotated("berth.dev/restart-requested-at", "t1");
      const result = plan(app, withService(app));
      expect(result.actions).toEqual([{ type: "claim", request: "restart", value: "t1" }]);
      // Not echoed by the plan: a claim held back (a pause) must leave the request to come.
      expect(result.status.lastHandledRestartAt).toBeUndefined();
    });

    it("restarts once the echo is written and the claim held", () => {
      const app = annotated("berth.dev/restart-requested-at", "t1", { lastHandledRestartAt: "t1" });
      expect(plan(app, withService(app, { restart: "t1" })).actions).toEqual([
        {
          type: "restart",
          requestedAt: "t1",
          // The intent recorded before the call names the app and the request it carries out.
          intent: expect.objectContaining({
            operation: "restartApp",
            attempt: 1,
            input: expect.objectContaining({ requestedAt: "t1" }),
          }),
        },
      ]);
    });

    it("never restarts for an echoed request without a claim (handled before, or lost in a crash)", () => {
      const app = annotated("berth.dev/restart-requested-at", "t1", { lastHandledRestartAt: "t1" });
      expect(plan(app, withService(app)).actions).toEqual([]);
    });

    it("echoes but does not build an image app", () => {
      const app = annotated("berth.dev/rebuild-requested-at", "t2", { lastHandledRebuildAt: "t2" });
      expect(plan(app, withService(app, { rebuild: "t2" })).actions).toEqual([]);
    });

    it("echoes a reconcile request (berth's or Flux's)", () => {
      const app = annotated("reconcile.fluxcd.io/requestedAt", "t3");
      expect(plan(app, withService(app)).status.lastHandledReconcileAt).toBe("t3");
    });
  });

  it("suspended: no actions, Ready False Suspended", () => {
    const { app, seen } = existing({ suspend: true, stopped: true });
    const result = plan(app, seen);
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Ready")).toBe("False/Suspended");
    expect(conditionOf(result, "Reconciling")).toBeUndefined();
  });

  it.each([
    { stalled: true, reason: "CredentialsNotFound", ready: "False/CredentialsNotFound" },
    { stalled: false, reason: "ProjectNotReady", ready: "Unknown/ProjectNotReady" },
  ] as const)("an observed problem ($reason) blocks every action", ({ stalled, reason, ready }) => {
    const app = anApp();
    const result = plan(app, observed(app, {}, { problem: { stalled, reason, message: "why" } }));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Ready")).toBe(ready);
    expect(result.stalled).toBe(stalled);
  });
});

describe("planApp: deleting", () => {
  const deleting = (
    spec = {},
    state?: Parameters<typeof serviceStatus>[0],
    finalizers = ["berth.dev/finalizer"],
  ) => {
    const app = anApp(spec, {
      metadata: { deletionTimestamp: "2030-01-01T00:00:00Z", finalizers },
      status: { appId: "b".repeat(24), projectId },
    });
    const seen = observed(
      app,
      state === undefined ? {} : { app: serviceApp(desiredOf(app)), status: serviceStatus(state) },
    );
    return { app, seen };
  };

  it.each([
    { case: "running", spec: {}, state: "running", actions: ["stop"] },
    { case: "stopping", spec: {}, state: "stopping", actions: [] },
    { case: "stopped", spec: {}, state: "stopped", actions: ["delete", "removeFinalizer"] },
    { case: "Orphan", spec: { deletionPolicy: "Orphan" }, state: "running", actions: ["removeFinalizer"] },
    { case: "suspended", spec: { suspend: true }, state: "stopped", actions: ["delete", "removeFinalizer"] },
  ] as const)("$case → $actions", ({ spec, state, actions }) => {
    const { app, seen } = deleting(spec, state);
    const result = plan(app, seen);
    expect(types(result)).toEqual(actions);
    if (actions.length > 0 && actions[0] !== "removeFinalizer")
      expect(conditionOf(result, "Reconciling")).toBe("True/Deleting");
  });

  it.each([
    { case: "a lookup found nothing", lookedUpNothing: true, problem: false, actions: ["removeFinalizer"] },
    { case: "the lookup failed", lookedUpNothing: undefined, problem: true, actions: [] },
    { case: "no lookup ran yet", lookedUpNothing: undefined, problem: false, actions: [] },
  ])(
    "without an app ID, $case → $actions (never released on a failed lookup)",
    ({ lookedUpNothing, problem, actions }) => {
      const app = anApp(
        {},
        { metadata: { deletionTimestamp: "2030-01-01T00:00:00Z", finalizers: ["berth.dev/finalizer"] } },
      );
      const seen = observed(app);
      if (lookedUpNothing !== undefined) seen.lookedUpNothing = lookedUpNothing;
      if (problem)
        seen.problem = { stalled: false, reason: "ServiceUnavailable" as never, message: "listApps failed" };
      expect(types(plan(app, seen))).toEqual(actions);
    },
  );

  it("with another user's key (CredentialsChanged), nothing is released", () => {
    const { app, seen } = deleting({}, "running");
    seen.external.gone = true;
    seen.problem = { stalled: true, reason: "CredentialsChanged" as never, message: "another user" };
    expect(types(plan(app, seen))).toEqual([]);
    expect(conditionOf(plan(app, seen), "Stalled")).toBe("True/CredentialsChanged");
  });

  it("polls a little after the app should have stopped", () => {
    const { app, seen } = deleting({}, "stopping");
    expect(plan(app, seen).statusPollMs).toBe(polls.stoppingMs * 1.125);
  });

  it("deletes once the stop it asked for should be over, without reading the status first", () => {
    const { app, seen } = deleting({}, "stopping");
    seen.external.stopSettlesAt = now.getTime() + 1;
    expect(types(plan(app, seen))).toEqual([]);
    seen.external.stopSettlesAt = now.getTime();
    expect(types(plan(app, seen))).toEqual(["delete", "removeFinalizer"]);
  });

  it("releases an app that is already gone at the service", () => {
    const { app, seen } = deleting();
    seen.external.gone = true;
    expect(types(plan(app, seen))).toEqual(["removeFinalizer"]);
  });

  it("does nothing without its finalizer", () => {
    const { app, seen } = deleting({}, "running", []);
    expect(plan(app, seen).actions).toEqual([]);
  });

  it("keeps the project the app was last seen in while its spec names another (a move not made)", () => {
    const { app, seen } = deleting({}, "running");
    seen.projectId = "c".repeat(24);
    seen.external.app = undefined;
    seen.external.status = undefined;
    expect(plan(app, seen).status.projectId).toBe(projectId);
  });

  it("refuses to delete without apps:admin", () => {
    const { app, seen } = deleting({}, "stopped");
    seen.me = me(["apps:write"]);
    const result = plan(app, seen);
    expect(result.actions).toEqual([]);
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("apps:admin");
  });
});

describe("planApp: moving to another project", () => {
  const target = "c".repeat(24);
  it.each([
    ["the owner's key moves it", ["*"], { owner: true }, ["move"], "Reconciling", "True/Moving"],
    ["ownership not known yet: checked first", ["*"], undefined, [], "Reconciling", "True/Moving"],
    ["not the owner: refused", ["*"], { owner: false }, [], "Stalled", "True/Forbidden"],
    ["no apps:admin: refused", ["apps:write"], { owner: true }, [], "Stalled", "True/MissingScopes"],
  ] as const)("%s", (_name, scopes, moveOwner, actions, type, condition) => {
    const { app, seen } = existing();
    seen.projectId = target;
    seen.me = me([...scopes]);
    const service = seen.external.app;
    if (moveOwner !== undefined && service !== undefined)
      seen.external.moveOwner = { appId: service.id, ...moveOwner };
    const result = plan(app, seen);
    expect(types(result)).toEqual(actions);
    expect(conditionOf(result, type)).toBe(condition);
    if (actions.length > 0)
      expect(result.actions[0]).toEqual({
        type: "move",
        from: projectId,
        to: target,
        intent: expect.objectContaining({
          operation: "moveApp",
          attempt: 1,
          input: { appId: service?.id, from: projectId, to: target },
        }),
      });
  });
});
