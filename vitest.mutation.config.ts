import { defineConfig } from "vitest/config";

// The unit tests one mutation group runs (npm run mutation): scripts/mutation.ts sets the globs.
const include = (process.env.BERTH_MUTATION_TESTS ?? "src/**/*.test.ts,scripts/**/*.test.ts").split(",");

export default defineConfig({
  test: { include, environment: "node" },
});
