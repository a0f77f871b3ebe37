import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { issuesToDetails } from "../../simulator/http/inputs.ts";
import { seedSchema, startSimulator } from "../../simulator/index.ts";
import { type ProfileInput, switches } from "../../simulator/profile.ts";
import { createLogger } from "../../telemetry/logger.ts";
import { booleanish, defineCommand, port, UsageError } from "../command.ts";
import { untilSignal } from "../signals.ts";

export const simulatorCommand = defineCommand({
  name: "simulator",
  summary: "run the hosting API simulator (in memory) for tests, demos and CI",
  flags: {
    port: { description: "TCP port (default 8787; 0 picks a free one)" },
    host: { description: "address to listen on (default 127.0.0.1)" },
    seed: {
      description: 'JSON or YAML file of users and keys: {"users":[{"id","email","balance","keys":[…]}]}',
    },
    "control-api": { description: "serve the /_sim control API (faults, clock, users)", type: "boolean" },
    profile: {
      description:
        "how strictly the spec is read: harsh (default), lenient, or lenient switches to turn on, comma-separated (see docs/simulator.md)",
    },
    "clock-speed": { description: "simulated seconds per real second (default 1)" },
    "log-level": { description: "log level: debug, info, warn, error (default warn)" },
  },
  config: z.object({
    port: port.default(8787),
    host: z.string().min(1).default("127.0.0.1"),
    seed: z.string().min(1).optional(),
    controlApi: booleanish.default(false),
    clockSpeed: z.coerce.number().positive().max(100_000).default(1),
    profile: z.string().min(1).optional(),
    logLevel: z.enum(["debug", "info", "warn", "error"]).default("warn"),
  }),
  async run(config, { stdout }) {
    const seed = config.seed === undefined ? undefined : await readSeed(config.seed);
    const simulator = await startSimulator({
      port: config.port,
      host: config.host,
      controlApi: config.controlApi,
      clockSpeed: config.clockSpeed,
      logger: createLogger({ level: config.logLevel }),
      ...(seed === undefined ? {} : { seed }),
      ...(config.profile === undefined ? {} : { profile: parseProfileFlag(config.profile) }),
    });
    stdout.write(`hosting API simulator listening at ${simulator.baseUrl}\n`);
    if (config.controlApi) stdout.write(`control API: ${simulator.controlUrl}\n`);
    if (simulator.demoKey !== undefined) stdout.write(`demo API key (full access): ${simulator.demoKey}\n`);
    await untilSignal();
    await simulator.close();
    stdout.write("simulator stopped\n");
    return 0;
  },
});

/** `harsh`, `lenient`, or lenient switches over harsh: `uniqueNames,fullPages`. */
function parseProfileFlag(value: string): ProfileInput {
  if (value === "harsh" || value === "lenient") return value;
  const names = value.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(switches as string[]).includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--profile: unknown switch ${unknown.join(", ")}; use harsh, lenient, or switches from: ${switches.join(", ")}`,
    );
  }
  return Object.fromEntries(names.map((name) => [name, true]));
}

async function readSeed(file: string) {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `--seed ${file}: cannot read it (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch {
    throw new UsageError(`--seed ${file}: not valid JSON or YAML`);
  }
  const parsed = seedSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = issuesToDetails(parsed.error.issues).map((d) => `${d.path}: ${d.message}`);
    throw new UsageError(`--seed ${file} is not a valid seed file:\n  ${problems.join("\n  ")}`);
  }
  return parsed.data;
}
