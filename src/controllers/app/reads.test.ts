import { describe, expect, it } from "vitest";
import { anApp, appId, desiredOf, projectId, serviceApp, serviceStatus } from "./builders.test-support.ts";
import { newAppMemory } from "./memory.ts";
import { readsDue } from "./reads.ts";

const now = 1_000_000;
const readyCondition = {
  type: "Ready",
  status: "True" as const,
  reason: "Succeeded",
  message: "ok",
  lastTransitionTime: "2030-01-01T00:00:00Z",
};
const readyStatus = {
  appId,
  projectId,
  observedGeneration: 1,
  conditions: [
    {
      type: "Ready",
      status: "True" as const,
      reason: "Succeeded",
      message: "ok",
      lastTransitionTime: "2030-01-01T00:00:00Z",
    },
  ],
};

function known(extra: Partial<ReturnType<typeof newAppMemory>> = {}) {
  const memory = newAppMemory();
  memory.external.app = serviceApp(desiredOf(anApp()));
  memory.external.status = serviceStatus("running");
  memory.readGeneration = 1;
  memory.driftDueAt = now + 60_000;
  return Object.assign(memory, extra);
}

describe("readsDue", () => {
  it("reads nothing when nothing is due (a reconcile woken by its own status write)", () => {
    expect(readsDue(anApp({}, { status: readyStatus }), known(), now)).toMatchObject({
      app: false,
      status: false,
      build: false,
      lookup: false,
    });
  });

  it("reads only the status when its poll is due, after user work once the App is settled", () => {
    const reads = readsDue(anApp({}, { status: readyStatus }), known({ statusDueAt: now }), now);
    expect(reads).toMatchObject({ app: false, status: true, background: true });
    const creating = { ...readyStatus, conditions: [{ ...readyCondition, status: "False" as const }] };
    const polled = readsDue(anApp({}, { status: creating }), known({ statusDueAt: now }), now);
    expect(polled).toMatchObject({ app: false, status: true, background: false });
  });

  it("reads app and status at low priority when only the drift check is due", () => {
    const reads = readsDue(anApp({}, { status: readyStatus }), known({ driftDueAt: now - 1 }), now);
    expect(reads).toMatchObject({ app: true, status: true, background: true });
  });

  it("puts off the drift check of an App polled on its way to Ready: only its due poll is read", () => {
    const creating = { ...readyStatus, conditions: [{ ...readyCondition, status: "False" as const }] };
    const polled = known({ driftDueAt: now - 1, statusDueAt: now + 1000 });
    expect(readsDue(anApp({}, { status: creating }), polled, now)).toMatchObject({
      app: false,
      status: false,
      driftPostponed: true,
    });
    const settled = readsDue(anApp({}, { status: readyStatus }), polled, now);
    expect(settled).toMatchObject({ app: true, background: true, driftPostponed: false });
  });

  it("reads at user priority while the App is on its way to Ready, even when its drift check is due", () => {
    const creating = { ...readyStatus, conditions: [{ ...readyCondition, status: "False" as const }] };
    const reads = readsDue(anApp({}, { status: creating }), known({ driftDueAt: now - 1 }), now);
    expect(reads).toMatchObject({ app: true, status: true, background: false });
    const fresh = readsDue(anApp(), known({ driftDueAt: now - 1, statusDueAt: now }), now);
    expect(fresh.background).toBe(false);
  });

  it("reads a Stalled App's drift check in the background", () => {
    const stalledStatus = {
      ...readyStatus,
      conditions: [
        { ...readyCondition, status: "False" as const },
        { ...readyCondition, type: "Stalled" },
      ],
    };
    const reads = readsDue(anApp({}, { status: stalledStatus }), known({ driftDueAt: now - 1 }), now);
    expect(reads.background).toBe(true);
  });

  it("reads app and status at user priority after a spec change", () => {
    const app = anApp({}, { status: readyStatus, metadata: { generation: 2 } });
    expect(readsDue(app, known(), now)).toMatchObject({ app: true, status: true, background: false });
  });

  it("reads afresh for a reconcile request not yet served", () => {
    const app = anApp(
      {},
      { status: readyStatus, metadata: { annotations: { "berth.dev/reconcile-requested-at": "t1" } } },
    );
    expect(readsDue(app, known(), now).app).toBe(true);
    expect(readsDue(app, known({ servedRequest: "t1" }), now).app).toBe(false);
  });

  it("spreads the first read of a settled App after a restart instead of reading at once", () => {
    expect(readsDue(anApp({}, { status: readyStatus }), newAppMemory(), now)).toMatchObject({
      spreadFirstRead: true,
      app: false,
      status: false,
    });
  });

  it("reads at once after a restart when the App is not settled", () => {
    const app = anApp({}, { status: { ...readyStatus, conditions: [] } });
    expect(readsDue(app, newAppMemory(), now)).toMatchObject({
      app: true,
      status: true,
      spreadFirstRead: false,
    });
  });

  it("looks the app up by name only after a create that may have acted: never from the finalizer", () => {
    // Met for the first time with berth's finalizer but no create recorded as sent (it was held,
    // say): a same-named app a person made meanwhile is not looked up, so never adopted.
    expect(readsDue(anApp(), newAppMemory(), now).lookup).toBe(false);
    const bare = anApp({}, { metadata: { finalizers: [] } });
    expect(readsDue(bare, newAppMemory(), now).lookup).toBe(false);
    const uncertain = { ...newAppMemory(), uncertainCreate: true };
    expect(readsDue(bare, uncertain, now).lookup).toBe(true);
  });

  it("settles a Pending intent first: a create by lookup, a move by a full read, also while deleting", () => {
    const met = newAppMemory();
    const intent = (operation: string) => ({
      operation,
      key: `${operation}.k`,
      input: "{}",
      attempt: 1,
      since: "2030-01-01T00:00:00.000Z",
      state: "Pending" as const,
    });
    const creating = anApp({}, { status: { intents: [intent("createApp")] } });
    expect(readsDue(creating, met, now)).toMatchObject({ lookup: true, app: false });
    const moving = anApp(
      {},
      {
        status: { ...readyStatus, intents: [intent("moveApp")] },
        metadata: { deletionTimestamp: "2030-01-01T00:00:00Z" },
      },
    );
    expect(readsDue(moving, known(), now)).toMatchObject({ app: true, status: true, lookup: false });
  });

  it("reads only the status while deleting", () => {
    const app = anApp({}, { status: readyStatus, metadata: { deletionTimestamp: "2030-01-01T00:00:00Z" } });
    expect(readsDue(app, known({ statusDueAt: now }), now)).toMatchObject({ app: false, status: true });
  });

  it("reads no status once the stop it asked for should be over: the delete looks at the app", () => {
    const app = anApp({}, { status: readyStatus, metadata: { deletionTimestamp: "2030-01-01T00:00:00Z" } });
    const memory = known({ statusDueAt: now });
    memory.external.status = serviceStatus("stopping");
    memory.external.stopSettlesAt = now + 1;
    expect(readsDue(app, memory, now).status).toBe(true);
    memory.external.stopSettlesAt = now;
    expect(readsDue(app, memory, now).status).toBe(false);
  });

  it("polls the build of a repository app when due, not before", () => {
    const source = { provider: "github", repository: "example/web", branch: "main" };
    const app = anApp({ image: undefined, source }, { status: readyStatus });
    const memory = known({ buildDueAt: now + 1000 });
    memory.external.app = serviceApp(desiredOf(app));
    memory.external.build = {
      id: "bld_1",
      appId,
      projectId,
      state: "running",
      failedStep: null,
      createdAt: "",
      finishedAt: null,
      pollAfterSec: 3,
    };
    expect(readsDue(app, memory, now).build).toBe(false);
    memory.buildDueAt = now;
    expect(readsDue(app, memory, now).build).toBe(true);
  });
});
