// Loaded into the benchmarked operator with `--import` by bench-cli.ts: reads its RSS every 100 ms,
// where the memory is (V8's spaces, external, ArrayBuffers) at each new high, and, as it exits,
// writes the reading at the highest RSS and the last one to $BENCH_MEMORY_FILE. Plain JavaScript:
// a .ts file would load Node's type stripper into the very process being measured.
import { writeFileSync } from "node:fs";
import v8 from "node:v8";

const file = process.env.BENCH_MEMORY_FILE;
const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** Where the process's memory is now, in MB. */
function sample() {
  const usage = process.memoryUsage();
  const spaces = {};
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_size < 2 ** 20) continue;
    spaces[space.space_name.replace(/_space$/, "")] = mb(space.space_size);
  }
  return {
    at: Date.now(),
    rss: mb(usage.rss),
    heapTotal: mb(usage.heapTotal),
    heapUsed: mb(usage.heapUsed),
    external: mb(usage.external),
    arrayBuffers: mb(usage.arrayBuffers),
    spaces,
  };
}

// Only in the process that runs the operator (the CLI starts itself once more with its tuning).
if (file !== undefined && process.env.BERTH_NODE_TUNING !== undefined) {
  let peak = sample();
  const timer = setInterval(() => {
    // The RSS alone is cheap; the breakdown is read only at a new high.
    if (mb(process.memoryUsage.rss()) > peak.rss) peak = sample();
  }, 100);
  timer.unref();
  process.on("exit", () => writeFileSync(file, JSON.stringify({ peak, last: sample() })));
}
