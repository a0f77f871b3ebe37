import { parseArgs } from "node:util";
import { z } from "zod";

/** A command-line flag; every flag can also come from the environment as BERTH_<FLAG_NAME>. */
export interface Flag {
  description: string;
  type?: "string" | "boolean";
  multiple?: boolean;
  /** A one-letter alias, e.g. `n` for `-n` (as kubectl's `-n` for `--namespace`). */
  short?: string;
}

export interface CommandContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface Command<S extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  flags: Record<string, Flag>;
  /** Arguments that are not flags (e.g. `app/web`), named for the usage; they reach the config as `args`. */
  positionals?: string;
  /** Turns the raw flag values (strings, booleans, string arrays) into the command's config. */
  config: S;
  run(config: z.output<S>, context: CommandContext): Promise<number>;
}

/** A command with its config type erased, for tables of commands. */
export type AnyCommand = Command<z.ZodType>;

export function defineCommand<S extends z.ZodType>(command: Command<S>): AnyCommand {
  return command as unknown as AnyCommand;
}

export class UsageError extends Error {
  readonly code = "usage";
  /** The last line to print, e.g. `did you mean --metrics-addr?`. */
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.hint = hint;
  }
}

/** The closest of `known` to a mistyped `name` (at most a third of its letters off), if any. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(name, word);
    if (distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { word, distance };
  }
  return best !== undefined && best.distance <= Math.max(1, Math.floor(name.length / 3))
    ? best.word
    : undefined;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** Refuses the first flag the command does not have, suggesting the nearest one. */
function refuseUnknownFlags(command: Command, argv: string[]): void {
  for (const arg of argv) {
    if (arg === "--") return;
    const name = /^--?([^=]+)/.exec(arg)?.[1];
    if (name === undefined || Object.hasOwn(command.flags, name)) continue;
    if (!arg.startsWith("--") && Object.values(command.flags).some((flag) => flag.short === name)) continue;
    const near = closest(name, Object.keys(command.flags));
    throw new UsageError(
      `unknown flag ${arg.split("=")[0]}`,
      near === undefined
        ? `run "berth ${command.name} --help" for its flags`
        : `did you mean --${near}? ("berth ${command.name} --help" lists every flag)`,
    );
  }
}

export function envName(flag: string): string {
  return `BERTH_${flag.replaceAll("-", "_").toUpperCase()}`;
}

/** The only place that reads argv and env: flags win over BERTH_* variables, then zod validates. */
export function parseConfig<S extends z.ZodType>(
  command: Command<S>,
  argv: string[],
  env: NodeJS.ProcessEnv,
): z.output<S> {
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, flag]) => [
      name,
      {
        type: flag.type ?? "string",
        multiple: flag.multiple ?? false,
        ...(flag.short === undefined ? {} : { short: flag.short }),
      },
    ]),
  );
  refuseUnknownFlags(command as unknown as Command, argv);
  // parseArgs refuses `--flag=false` for a boolean; take those aside (booleanish validates them).
  const assigned: Record<string, string> = {};
  const args = argv.filter((arg) => {
    const [, name = "", value] = /^--([^=]+)=(.*)$/s.exec(arg) ?? [];
    if (value === undefined || command.flags[name]?.type !== "boolean") return true;
    assigned[name] = value;
    return false;
  });
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    const allowPositionals = command.positionals !== undefined;
    ({ values, positionals } = parseArgs({ args, options, strict: true, allowPositionals }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const raw: Record<string, unknown> = command.positionals === undefined ? {} : { args: positionals };
  for (const [name, flag] of Object.entries(command.flags)) {
    const fromEnv = env[envName(name)];
    const value =
      values[name] ??
      assigned[name] ??
      (fromEnv === undefined || fromEnv === "" ? undefined : flag.multiple ? fromEnv.split(",") : fromEnv);
    if (value !== undefined) raw[camelCase(name)] = value;
  }
  const parsed = command.config.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const flag = issue.path.length > 0 ? `--${kebabCase(String(issue.path[0]))}` : "config";
      return `${flag} (or ${envName(kebabCase(String(issue.path[0] ?? "")))}): ${issue.message}`;
    });
    throw new UsageError(`invalid ${command.name} options:\n  ${problems.join("\n  ")}`);
  }
  return parsed.data;
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Booleans from flags (`--flag`, `--flag=false`) or the environment ("true", "false", "1", "0"). */
export const booleanish = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
  .transform((v) => v === true || v === "true" || v === "1");

/** A TCP port from a flag or the environment. */
export const port = z.coerce.number().int().min(0).max(65535);
