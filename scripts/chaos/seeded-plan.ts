import { namespaces, writeTimeoutOf } from "./environment.ts";
import { type MoveEvent, planMoves } from "./moves-plan.ts";
import type { ChaosOptions } from "./options.ts";
import { type OwnershipEvent, planOwnershipFaults } from "./ownership-plan.ts";
import { type LoadPlan, planLoad } from "./plan.ts";
import { Random } from "./random.ts";
import { planSpendLimit } from "./spend.ts";

/** The load, the ownership faults and the moves on it, from the seed alone (both adjust the load). */
export function seededPlan(
  options: Pick<ChaosOptions, "seed" | "sizes" | "chaosSec" | "operator"> & { moves?: boolean },
): {
  plan: LoadPlan;
  ownership: OwnershipEvent[];
  moves: MoveEvent[];
} {
  const plan = planLoad(
    Random.forPurpose(options.seed, "load"),
    namespaces,
    options.sizes,
    options.chaosSec,
    Random.forPurpose(options.seed, "edits"),
  );
  const ownership = planOwnershipFaults(Random.forPurpose(options.seed, "ownership"), plan, {
    chaosSec: options.chaosSec,
    writeTimeoutMs: writeTimeoutOf(options.operator),
  });
  const moves =
    options.moves === false
      ? []
      : planMoves(Random.forPurpose(options.seed, "moves"), plan, {
          chaosSec: options.chaosSec,
          limit: planSpendLimit(plan),
        });
  return { plan, ownership, moves };
}
