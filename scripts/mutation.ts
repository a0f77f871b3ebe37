// npm run mutation -- [checker|money ...] [--concurrency N]: mutation testing of the checker and
// the money paths with StrykerJS (stryker.config.json), one group after another, incremental (a
// rerun tests only the mutants of changed code). Prints each file's score and records it, with a
// hash of each mutated file, in docs/mutation/scores.json; scripts/mutation/scores.test.ts fails
// `npm test` when a mutated file changed since its score was recorded.
import { performance } from "node:perf_hooks";
import { Stryker } from "@stryker-mutator/core";
import { parseMutationArgs } from "./mutation/args.ts";
import type { MutationGroup } from "./mutation/groups.ts";
import { type GroupScore, readScores, scoreGroup, writeScores } from "./mutation/scores.ts";

async function runGroup(group: MutationGroup, concurrency: number): Promise<GroupScore> {
  process.env.BERTH_MUTATION_TESTS = group.tests.join(",");
  const started = performance.now();
  const stryker = new Stryker({
    configFile: "stryker.config.json",
    mutate: group.mutate,
    concurrency,
    incrementalFile: `reports/mutation/${group.name}.incremental.json`,
    jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
  });
  const results = await stryker.runMutationTest();
  const seconds = Math.round((performance.now() - started) / 1000);
  return scoreGroup(group, results, seconds);
}

function print(score: GroupScore, threshold: number): void {
  console.log(`\nmutation group ${score.group}: ${score.seconds} s`);
  for (const [file, s] of Object.entries(score.files)) {
    const mark = s.score < threshold ? "  BELOW" : "";
    console.log(
      `  ${s.score.toFixed(1).padStart(5)} %  ${file} (${s.killed} killed, ${s.timeout} timed out, ${s.survived} survived, ${s.noCoverage} not covered, ${s.ignored} ignored)${mark}`,
    );
  }
  console.log(`  ${score.total.toFixed(1).padStart(5)} %  all ${Object.keys(score.files).length} files`);
}

const { groups, concurrency } = parseMutationArgs(process.argv.slice(2));
const recorded = await readScores();
let below = false;
for (const group of groups) {
  const score = await runGroup(group, concurrency);
  recorded[group.name] = score;
  await writeScores(recorded);
  print(score, group.threshold);
  below ||= Object.values(score.files).some((s) => s.score < group.threshold);
}
if (below) {
  console.error("\nsome files are below their group's threshold (see above)");
  process.exitCode = 1;
}
