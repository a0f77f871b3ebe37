import { describe, expect, it } from "vitest";
import { anApp, desiredOf, serviceApp } from "./builders.test-support.ts";
import { type AppKnowledge, newAppMemory, noReads, scheduleReads } from "./memory.ts";

const now = 1_000_000;
const timing = { startingMs: 3000, driftMs: () => 20_000 };

function knowledge(extra: Partial<AppKnowledge>): AppKnowledge {
  const memory = newAppMemory();
  memory.external.app = serviceApp(desiredOf(anApp()));
  return {
    ...memory,
    problem: undefined,
    me: undefined,
    projectId: undefined,
    desired: undefined,
    requestId: undefined,
    reads: noReads,
    changedByCall: { status: false, build: false },
    ...extra,
  } as AppKnowledge;
}

describe("scheduleReads", () => {
  const plan = { statusPollMs: 2000, buildPollMs: undefined, actions: [] };

  it("a drift check put off while the App is polled comes due an interval from now, its poll first", () => {
    const put = knowledge({
      driftDueAt: now - 5000,
      statusDueAt: now + 2000,
      reads: { ...noReads, driftPostponed: true },
    });
    const { knowledge: next, dueAt } = scheduleReads(put, plan, now, timing);
    expect(next.driftDueAt).toBe(now + 20_000);
    expect(dueAt).toBe(now + 2000);
  });

  it("a drift check turned away by the budget stays due (it is stretched, not skipped)", () => {
    const due = knowledge({ driftDueAt: now - 5000, reads: { ...noReads, app: true, background: true } });
    expect(scheduleReads(due, { ...plan, statusPollMs: undefined }, now, timing).knowledge.driftDueAt).toBe(
      now - 5000,
    );
  });

  it("a drift check's status read turned away by the budget stays due after its config was read", () => {
    const read = { ...noReads, app: true, status: true, background: true };
    const unread = knowledge({ driftDueAt: now + 20_000, statusDueAt: now, reads: read });
    const { knowledge: next, dueAt } = scheduleReads(
      unread,
      { ...plan, statusPollMs: undefined },
      now,
      timing,
    );
    expect(next.statusDueAt).toBe(now);
    expect(dueAt).toBe(now);
    const answered = knowledge({ driftDueAt: now + 20_000, statusDueAt: undefined, reads: read });
    expect(
      scheduleReads(answered, { ...plan, statusPollMs: undefined }, now, timing).knowledge.statusDueAt,
    ).toBe(undefined);
  });
});
