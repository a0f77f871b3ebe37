import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { namespaces } from "./environment.ts";
import { planLoad } from "./plan.ts";
import { Random } from "./random.ts";

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
    // The seed CI runs the short suite with.
    const ciSeed = Number(/--short --seed (\d+)/.exec(readFileSync(".ci/run", "utf8"))?.[1]);
    const short = planLoad(Random.forPurpose(ciSeed, "load"), namespaces, sizes, 150);
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
});
