/**
 * How `berth operator` asks Node to run, measured with 10,000 Apps (scripts/bench-cli.ts): V8's
 * background TurboFan compiles leave malloc arenas fragmented (some 10 MB after the first sync),
 * and TurboFan's own code pages another 5 MB, for an operator whose time goes to I/O, not to hot
 * loops. Maglev, V8's mid-tier compiler, optimizes what is hot; glibc keeps two arenas, not 16.
 * These are start-up settings, so the CLI replaces itself (same pid) once with them. Imports nothing.
 */
export const tuningFlags = ["--max-opt=2", "--no-concurrent-recompilation"];
export const tuningEnv = { MALLOC_ARENA_MAX: "2" };
/** Set to `off` to run with Node's defaults; set to `applied` by the restart itself. */
export const tuningVariable = "BERTH_NODE_TUNING";

export interface TunedStart {
  args: string[];
  env: Record<string, string | undefined>;
}

/**
 * The command line and environment to start again with, or undefined to carry on as is: when the
 * command is not `operator`, the tuning is off or applied, or a flag of the same name was given.
 */
export function tunedStart(
  command: string | undefined,
  node: { execPath: string; execArgv: string[]; argv: string[]; env: Record<string, string | undefined> },
): TunedStart | undefined {
  if (command !== "operator" || node.env[tuningVariable] !== undefined) return undefined;
  const given = new Set(node.execArgv.map((flag) => flag.split("=")[0]));
  const flags = tuningFlags.filter((flag) => !given.has(flag.split("=")[0]));
  return {
    args: [node.execPath, ...flags, ...node.execArgv, ...node.argv.slice(1)],
    env: { ...tuningEnv, ...node.env, [tuningVariable]: "applied" },
  };
}
