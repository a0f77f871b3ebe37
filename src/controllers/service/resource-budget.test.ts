import { describe, expect, it } from "vitest";
import { ResourceBudget } from "./resource-budget.ts";

const key = { limit: 100, windowMs: 60_000 };
const app = "apps/team/web";
const state = (learned = "s1", generation = 1, deleting = false, inputs = "rv1") => ({
  generation,
  deleting,
  inputs,
  learned,
});

/** A budget with a 20 % share (20 calls of 100 per window) and a clock the test moves. */
function budget(share = 0.2) {
  const clock = { now: 0 };
  return { clock, budget: new ResourceBudget(share, () => clock.now) };
}

/** A resource that called once and then learned `state()`: what it spends from now on counts. */
function known(b: ResourceBudget, resource = app) {
  b.spend(resource, "key-a", key);
  b.learn(resource, state());
}

function spend(b: ResourceBudget, calls: number, credential = "key-a") {
  for (let i = 0; i < calls; i++) b.spend(app, credential, key);
}

describe("ResourceBudget", () => {
  it.each([
    { case: "under its share", calls: 19, capped: false },
    { case: "at its share", calls: 20, capped: true },
    { case: "far over", calls: 50, capped: true },
  ])("a resource making no progress: $case → capped $capped", ({ calls, capped }) => {
    const { budget: b } = budget();
    known(b);
    spend(b, calls);
    expect(b.check(app, state()).capped).toBe(capped);
  });

  it.each([
    { case: "the same state again", next: state("s1"), capped: true },
    { case: "a state learned anew", next: state("s2"), capped: false },
    { case: "a new generation", next: state("s1", 2), capped: false },
    { case: "a deletion", next: state("s1", 1, true), capped: false },
  ])("progress forgives what was spent: $case → capped $capped", ({ next, capped }) => {
    const { budget: b } = budget();
    known(b);
    spend(b, 25);
    b.learn(app, next);
    expect(b.check(app, next).capped).toBe(capped);
  });

  it("a state seen lately is no news: cycling between two states is capped", () => {
    const { budget: b } = budget();
    for (let round = 0; round < 10; round++) {
      spend(b, 3);
      b.learn(app, state(round % 2 === 0 ? "running" : "restarting"));
    }
    expect(b.check(app, state("running")).capped).toBe(true);
  });

  it("a new generation is let through before the reconcile learns it", () => {
    const { budget: b } = budget();
    known(b);
    spend(b, 25);
    expect(b.check(app, { generation: 2, deleting: false, inputs: "rv1" }).capped).toBe(false);
  });

  it("a fix of the credentials Secret is acted on at once, before the reconcile learns it", () => {
    const { budget: b } = budget();
    known(b);
    spend(b, 25);
    expect(b.check(app, state()).capped).toBe(true);
    expect(b.check(app, state("s1", 1, false, "rv2")).capped).toBe(false);
    b.learn(app, state("s1", 1, false, "rv2"));
    expect(b.check(app, state("s1", 1, false, "rv2")).capped).toBe(false);
  });

  it("waits until the oldest counted call leaves the window, and warns once until progress", () => {
    const { clock, budget: b } = budget();
    known(b);
    spend(b, 20);
    clock.now = 15_000;
    expect(b.check(app, state())).toEqual({
      capped: true,
      retryAfterMs: 45_000,
      spent: 20,
      cap: 20,
      first: true,
    });
    expect(b.check(app, state())).toMatchObject({ capped: true, first: false });
    clock.now = 60_000;
    expect(b.check(app, state()).capped).toBe(false);
    spend(b, 20);
    expect(b.check(app, state())).toMatchObject({ capped: true, first: false });
    b.learn(app, state("s2"));
    spend(b, 20);
    expect(b.check(app, state("s2"))).toMatchObject({ capped: true, first: true });
  });

  it("counts per credential: a resource moved to another key starts afresh", () => {
    const { budget: b } = budget();
    known(b);
    spend(b, 20, "key-a");
    spend(b, 1, "key-b");
    expect(b.check(app, state()).capped).toBe(false);
  });

  it("counts per resource: one resource's spending never caps another on the key", () => {
    const { budget: b } = budget();
    known(b);
    spend(b, 30);
    known(b, "apps/team/api");
    b.spend("apps/team/api", "key-a", key);
    expect(b.check("apps/team/api", state()).capped).toBe(false);
  });

  it.each([
    { limit: 300, share: 0.2, cap: 60 },
    { limit: 3, share: 0.2, cap: 1 },
  ])(
    "the cap is the share of the key's limit, at least one call: $limit × $share → $cap",
    ({ limit, share, cap }) => {
      const { budget: b } = budget(share);
      known(b);
      for (let i = 0; i < cap; i++) b.spend(app, "key-a", { limit, windowMs: 60_000 });
      expect(b.check(app, state())).toMatchObject({ capped: true, cap });
    },
  );

  it("a share of 0 turns the cap off", () => {
    const { budget: b } = budget(0);
    known(b);
    spend(b, 500);
    expect(b.check(app, state()).capped).toBe(false);
  });

  it("keeps nothing for a resource that never called, and counts its calls from its next state", () => {
    const { budget: b } = budget();
    expect(b.learn(app, state())).toBe(true);
    expect(b.size).toBe(0);
    spend(b, 25);
    expect(b.size).toBe(1);
    b.learn(app, state());
    spend(b, 20);
    expect(b.check(app, state()).capped).toBe(true);
  });

  it("forgets a deleted resource", () => {
    const { budget: b } = budget();
    known(b);
    spend(b, 25);
    b.forget(app);
    expect(b.check(app, state()).capped).toBe(false);
  });
});
