/**
 * How `berth operator` asks Node to run, measured with 10,000 Apps (scripts/bench-cli.ts):
 * - `--max-opt=2 --no-concurrent-recompilation`: V8's background TurboFan compiles leave malloc
 *   arenas fragmented (some 10 MB after the first sync), and TurboFan's own code pages another
 *   5 MB, for an operator whose time goes to I/O, not to hot loops; Maglev optimizes what is hot.
 * - `--max-semi-space-size=8`: a sync allocates fast, and V8 then grows the young generation to
 *   its largest (128 MB resident on a large machine), which was most of the sync's peak; 8 MB
 *   semi-spaces keep it at 16 MB (4 MB ones cost a quarter more CPU, for 8 MB less).
 * - `--heap-growing-percent=20`: a sync replaces every cached object, and the old copies stay in
 *   the old generation until its next full collection, which V8 otherwise puts off until it has
 *   grown two- to fourfold; at 20 % a sync's peak stays near its settled size.
 * - `MALLOC_ARENA_MAX=2`: glibc keeps two arenas, not 16.
 * These are start-up settings, so the CLI replaces itself (same pid) once with them. Imports nothing.
 */
export const tuningFlags = [
  "--max-opt=2",
  "--no-concurrent-recompilation",
  "--max-semi-space-size=8",
  "--heap-growing-percent=20",
];
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
  // A flag the user gave, on the command line or in NODE_OPTIONS (which the command line would override).
  const options = (node.env.NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean);
  const given = new Set([...node.execArgv, ...options].map((flag) => flag.split("=")[0]));
  const flags = tuningFlags.filter((flag) => !given.has(flag.split("=")[0]));
  return {
    args: [node.execPath, ...flags, ...node.execArgv, ...node.argv.slice(1)],
    env: { ...tuningEnv, ...node.env, [tuningVariable]: "applied" },
  };
}
