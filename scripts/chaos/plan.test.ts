import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { namespaces } from "./environment.ts";
import { parseOptions } from "./options.ts";
import { planLoad } from "./plan.ts";
import { Random } from "./random.ts";
import { seededPlan } from "./seeded-plan.ts";

/** The seed CI runs the short suite with. */
function ciSeed(): number {
  return Number(/--short --seed (\d+)/.exec(readFileSync(".ci/run", "utf8"))?.[1]);
}

describe("the chaos plan", () => {
  it("drives day 2: the short seeded run CI makes moves, retargets and ServerOrder changes; the full run every sort", () => {
    const sizes = { projects: 3, apps: 6, grids: 2, orders: 3 };
    const full = planLoad(
      Random.forPurpose(13, "load"),
      namespaces,
      { projects: 16, apps: 32, grids: 10, orders: 9 },
      960,
    );
    const whats = new Set(full.resources.flatMap((r) => r.updates.map((u) => u.what)));
    const short = planLoad(
      Random.forPurpose(ciSeed(), "load"),
      namespaces,
      sizes,
      150,
      Random.forPurpose(ciSeed(), "edits"),
    );
    const shortWhats = new Set(short.resources.flatMap((r) => r.updates.map((u) => u.what)));
    expect([...shortWhats]).toEqual(
      expect.arrayContaining([
        "App move",
        "App move retargeted",
        "ServerOrder approval withdrawn",
        "ServerOrder count grown",
        "ServerOrder hibernated",
        "ServerOrder replace-server annotation",
        "ServerOrder grid switched",
        "ServerOrder count shrunk",
        "a server failed at the service",
      ]),
    );
    expect([...whats].sort()).toEqual(
      expect.arrayContaining([
        "App move",
        "App move retargeted",
        "ServerOrder approval withdrawn",
        "ServerOrder count grown",
        "ServerOrder count shrunk",
        "ServerOrder hibernated",
        "ServerOrder replace-server annotation",
        "a server failed at the service",
      ]),
    );
  });

  it("makes the short CI run copy and adopt, each in its hard form at least once", () => {
    const { ownership } = seededPlan(parseOptions(["--short", "--seed", String(ciSeed())]));
    const of = <T extends (typeof ownership)[number]["type"]>(type: T) =>
      ownership.filter((e): e is Extract<(typeof ownership)[number], { type: T }> => e.type === type);
    const namespaceOf = (key: string) => key.split("/")[0];
    expect(of("copy").some((c) => c.deleteAfterSec !== undefined && c.deleteAfterSec < 1)).toBe(true);
    expect(of("copy").some((c) => c.copy.namespace !== namespaceOf(c.source))).toBe(true);
    expect(of("copy").some((c) => c.copy.namespace === namespaceOf(c.source))).toBe(true);
    expect(of("adopt").length).toBeGreaterThan(0);
  });

  it("makes the short CI run restore after a move and a ServerOrder change, and slow a spending call", () => {
    const { plan, ownership } = seededPlan(parseOptions(["--short", "--seed", String(ciSeed())]));
    const of = <T extends (typeof ownership)[number]["type"]>(type: T) =>
      ownership.filter((e): e is Extract<(typeof ownership)[number], { type: T }> => e.type === type);
    expect(of("restore").some((r) => r.after?.startsWith("App move") === true)).toBe(true);
    expect(of("restore").some((r) => r.after?.startsWith("ServerOrder") === true)).toBe(true);
    const [slow] = of("slowSpend");
    expect(slow?.latencyMs).toBeGreaterThan(parseOptions(["--short"]).operator === "scaled" ? 4000 : 30_000);
    const target = plan.resources.find((r) => r.key === slow?.target);
    const acted =
      slow?.action === "delete"
        ? target?.deleteAt
        : target?.updates.find((u) => u.what === "edit during a slow spending call")?.at;
    expect(acted).toBeGreaterThan(target?.createAt ?? Infinity);
    expect(acted).toBeLessThan((slow?.at ?? 0) + (slow?.seconds ?? 0));
  });

  it("keeps sources of copies and adoptions, restore targets and slow targets apart", () => {
    const { ownership } = seededPlan(parseOptions(["--seed", "13"]));
    const keys = ownership.map((e) => (e.type === "restore" || e.type === "slowSpend" ? e.target : e.source));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
