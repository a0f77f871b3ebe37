// npm run chaos: the seeded chaos suite of issue 13, "never spend twice, never leak".
//
//   npm run chaos -- --short --seed 7     (CI: about 4 minutes)
//   npm run chaos                         (the full run: about 20 minutes)
//
// It starts a local control plane, the simulator (its harsh default profile, clock sped up) and
// the operator as its own process; creates, updates and deletes Projects, Apps, Grids and
// ServerOrders in three namespaces over time, with day-2 changes (Apps moved and retargeted,
// ServerOrders grown, shrunk, hibernated and woken, approval withdrawn and given again, servers
// replaced or failing, grids switched, deletions right after each), while SIGKILLing the operator,
// injecting 5xx, act-then-drop creates, 429 storms and latency spikes, deleting and rotating
// credentials (once to another user's key mid-order) and restarting the control plane; and makes
// the moves users make (issue 44): spec edits drawn from the kinds' schemas (hardware, volumes,
// policies, ...), Namespace pauses and defaults (and values berth can't read) across operator
// restarts, creates held while a person makes a same-named object, the SpendLimit lowered, raised,
// deleted and re-created, adoptions by growth and replacement order IDs, and `berth import` then
// ["*"]. Checks the invariants throughout and at the end; prints figures.
// Exit code 1 when an invariant is violated, the resources do not converge, or the run did less
// than it planned (a fault or SIGKILL that did not fire, a check skipped, a log it could not read).

import { createLogger } from "../src/telemetry/logger.ts";
import { parseOptions, usage } from "./chaos/options.ts";
import { formatReport } from "./chaos/report.ts";
import { runChaos } from "./chaos/run.ts";
import { verdict } from "./chaos/verdict.ts";

if (process.argv.includes("--help")) {
  process.stdout.write(usage);
  process.exit(0);
}
const options = parseOptions(process.argv.slice(2));
const logger = createLogger({ level: options.logLevel });
process.stdout.write(
  `berth chaos: seed ${options.seed}, ${options.mode}, ${options.chaosSec} s of chaos (replay with --seed ${options.seed}${options.mode === "short" ? " --short" : ""})\n`,
);
const result = await runChaos(options, logger);
const outcome = verdict(result);
process.stdout.write(formatReport(result, outcome));
process.exitCode = outcome.passed ? 0 : 1;
