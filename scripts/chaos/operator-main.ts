// `berth operator` for the chaos suite: the same flags and the same startOperator as the CLI, with
// the timings of a sped-up simulator clock (CHAOS_CLOCK_SPEED times faster): the client's
// rate-limit window, the polls, the Stalled retry, like scripts/bench-operator.ts does.
//
//   CHAOS_CLOCK_SPEED=20 CHAOS_WRITE_TIMEOUT_MS=4000 CHAOS_FOLD_AFTER_MS=0 node scripts/chaos/operator-main.ts --kubeconfig … --namespace … (berth operator flags)
import { Registry } from "prom-client";
import { parseConfig } from "../../src/cli/command.ts";
import { operatorCommand } from "../../src/cli/commands/operator.ts";
import { untilSignal } from "../../src/cli/signals.ts";
import { defaultSettings, type PollIntervals } from "../../src/controllers/service/deps.ts";
import { type OperatorConfigInput, operatorConfigSchema, startOperator } from "../../src/operator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";

const speed = Number(process.env.CHAOS_CLOCK_SPEED ?? "1");
if (!(speed >= 1)) throw new Error("CHAOS_CLOCK_SPEED must be a number ≥ 1");
// Shorter than the gaps between SIGKILLs, so a slow spending call times out in the client (an
// outcome in doubt) instead of only ever dying with the process.
const writeTimeoutMs = Number(process.env.CHAOS_WRITE_TIMEOUT_MS ?? "30000");
if (!(writeTimeoutMs >= 1000)) throw new Error("CHAOS_WRITE_TIMEOUT_MS must be a number ≥ 1000");
const foldOrdersAfterMs =
  process.env.CHAOS_FOLD_AFTER_MS === undefined ? undefined : Number(process.env.CHAOS_FOLD_AFTER_MS);
if (Number.isNaN(foldOrdersAfterMs)) throw new Error("CHAOS_FOLD_AFTER_MS must be a number");

function scaled(ms: number): number {
  return Math.max(50, Math.round(ms / speed));
}

function scaledPolls(polls: PollIntervals): PollIntervals {
  return {
    startingMs: scaled(polls.startingMs),
    wiringMs: scaled(polls.wiringMs),
    stoppingMs: scaled(polls.stoppingMs),
    buildingMs: scaled(polls.buildingMs),
    waitingMs: scaled(polls.waitingMs),
  };
}

/** The CLI's parsing, checked once more against the operator's schema (the command erases its type). */
function operatorConfig(argv: string[]): OperatorConfigInput {
  const input = parseConfig(operatorCommand, argv, process.env) as OperatorConfigInput;
  const parsed = operatorConfigSchema.safeParse(input);
  if (!parsed.success) throw new Error(`bad operator flags: ${parsed.error.message}`);
  return input;
}

const config = operatorConfig(process.argv.slice(2));
const logger = createLogger({ level: config.logLevel ?? "info", destination: process.stdout });
const operator = await startOperator(config, {
  logger,
  registry: new Registry(),
  hosting: { limits: { windowMs: scaled(60_000) }, timeoutsMs: { write: writeTimeoutMs } },
  settings: {
    polls: scaledPolls(defaultSettings.polls),
    stalledRetryMs: scaled(defaultSettings.stalledRetryMs),
    foldOrdersAfterMs,
    // Like every other operator timing here: a commitment nothing ends counts 30 scaled minutes.
    spendCommitmentTtlMs: scaled(30 * 60_000),
  },
});
await operator.ready;
process.stdout.write("berth operator running\n");
await untilSignal();
await operator.stop();
process.stdout.write("operator stopped\n");
