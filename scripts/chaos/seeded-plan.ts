import { namespaces, writeTimeoutOf } from "./environment.ts";
import type { ChaosOptions } from "./options.ts";
import { type OwnershipEvent, planOwnershipFaults } from "./ownership-plan.ts";
import { type LoadPlan, planLoad } from "./plan.ts";
import { Random } from "./random.ts";

/** The load and the ownership faults on it, from the seed alone (the ownership faults adjust the load). */
export function seededPlan(options: Pick<ChaosOptions, "seed" | "sizes" | "chaosSec" | "operator">): {
  plan: LoadPlan;
  ownership: OwnershipEvent[];
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
  return { plan, ownership };
}
