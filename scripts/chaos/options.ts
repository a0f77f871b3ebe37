import { parseArgs } from "node:util";
import { z } from "zod";
import type { Sizes } from "./plan.ts";

export interface ChaosOptions {
  seed: number;
  mode: "short" | "full";
  /** Seconds of chaos: load, faults and kills; convergence is measured after it. */
  chaosSec: number;
  clockSpeed: number;
  /** Resources per namespace (three namespaces). */
  sizes: Sizes;
  /** Seconds between SIGKILLs, drawn uniformly from this range. */
  killGapSec: [number, number];
  checkIntervalMs: number;
  convergenceTimeoutSec: number;
  /** `scaled`: startOperator with the sped-up clock's timings; `cli`: `berth operator` itself. */
  operator: "scaled" | "cli";
  keep: boolean;
  logLevel: string;
  /** Plan the user moves of issue 44 (namespace annotations, held creates, SpendLimit changes). */
  moves: boolean;
}

const modes = {
  short: {
    chaosSec: 150,
    sizes: { projects: 3, apps: 6, grids: 2, orders: 3 },
    killGapSec: [3, 11] as [number, number],
    checkIntervalMs: 3000,
    convergenceTimeoutSec: 90,
  },
  full: {
    chaosSec: 960,
    sizes: { projects: 16, apps: 32, grids: 10, orders: 9 },
    killGapSec: [3, 12] as [number, number],
    checkIntervalMs: 5000,
    convergenceTimeoutSec: 600,
  },
};

const durationSchema = z
  .string()
  .regex(/^\d+(\.\d+)?(s|m)$/, 'must be a duration such as "150s" or "16m"')
  .transform((text) => Number.parseFloat(text) * (text.endsWith("m") ? 60 : 1))
  .refine((seconds) => seconds >= 30, "must be at least 30s");

const argsSchema = z.object({
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31)
    .default(13),
  short: z.boolean().default(false),
  duration: durationSchema.optional(),
  "clock-speed": z.coerce.number().int().min(1).max(100).default(20),
  operator: z.enum(["scaled", "cli"]).default("scaled"),
  keep: z.boolean().default(false),
  moves: z.boolean().default(false),
  "log-level": z.enum(["debug", "info", "warn", "error"]).default("warn"),
});

export const usage = `Usage: npm run chaos -- [--short] [--seed N] [--duration 16m] [--clock-speed 20] [--operator scaled|cli] [--keep] [--moves]

A seeded chaos run of the operator against the simulator and a local control plane; it prints its
invariants, how many of each planned fault and SIGKILL fired, and a verdict. It exits non-zero when
an invariant is violated, the resources do not converge, or the run did less than it planned (a
fault or SIGKILL that did not fire, a check that failed, a log it could not read).
  --short         the CI version (about 4 minutes); without it the full version (about 20 minutes)
  --seed N        drives every random choice (default 13): the same seed replays the same plan
  --duration D    seconds (150s) or minutes (16m) of chaos (default: 150s short, 16m full)
  --clock-speed   simulated seconds per real second (default 20)
  --operator      scaled (default): startOperator with the timings scaled to the clock;
                  cli: \`berth operator\` as shipped (real-time timings, slower to converge)
  --keep          keep the work directory (operator log, control-plane log)
  --moves         add the user moves (Namespace annotations, held creates, SpendLimit changes,
                  policy switches, adoptions by every order ID, berth import); off by default
                  until the defects they find are fixed (docs/architecture.md)
`;

export function parseOptions(argv: string[]): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      seed: { type: "string" },
      short: { type: "boolean" },
      duration: { type: "string" },
      "clock-speed": { type: "string" },
      operator: { type: "string" },
      keep: { type: "boolean" },
      moves: { type: "boolean" },
      "log-level": { type: "string" },
    },
  });
  const args = argsSchema.parse(values);
  const mode = args.short ? "short" : "full";
  const defaults = modes[mode];
  return {
    seed: args.seed,
    mode,
    ...defaults,
    chaosSec: args.duration ?? defaults.chaosSec,
    clockSpeed: args["clock-speed"],
    operator: args.operator,
    keep: args.keep,
    logLevel: args["log-level"],
    moves: args.moves,
  };
}
