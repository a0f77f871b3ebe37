/** A set of files mutated together, and the unit tests that may kill their mutants. */
export interface MutationGroup {
  name: string;
  mutate: string[];
  /** Globs of the test files run against the mutants. */
  tests: string[];
  /** The least mutation score (%) each file of the group must keep. */
  threshold: number;
}

/** The chaos suite's checker: what decides whether a run found a violation. */
const checker: MutationGroup = {
  name: "checker",
  mutate: [
    "scripts/chaos/invariants.ts",
    "scripts/chaos/verdict.ts",
    "scripts/chaos/spend.ts",
    "scripts/chaos/end-checks.ts",
  ],
  tests: ["scripts/chaos/**/*.test.ts"],
  threshold: 90,
};

/** Where berth decides to spend money at the service, and when it gives room back. */
const money: MutationGroup = {
  name: "money",
  mutate: [
    "src/controllers/skeleton/intents.ts",
    "src/controllers/skeleton/claim.ts",
    "src/controllers/skeleton/policies.ts",
    "src/controllers/skeleton/settlement.ts",
    "src/controllers/skeleton/cleanup.ts",
    "src/controllers/skeleton/spend-gate.ts",
    "src/controllers/service/spend-ledger.ts",
    "src/controllers/service/spend.ts",
    "src/controllers/service/claims.ts",
  ],
  tests: ["src/**/*.test.ts"],
  threshold: 80,
};

export const mutationGroups: readonly MutationGroup[] = [checker, money];
