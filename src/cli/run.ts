import { readBuildInfo, versionLine } from "./build-info.ts";
import {
  type AnyCommand,
  type CommandContext,
  closest,
  envName,
  parseConfig,
  UsageError,
} from "./command.ts";

/**
 * Every built command (one appears here when it works, never as a stub), each loaded only when
 * used: `berth operator` never loads the simulator, the control plane or client-node.
 */
const commands: Record<string, () => Promise<AnyCommand>> = {
  operator: async () => (await import("./commands/operator.ts")).operatorCommand,
  simulator: async () => (await import("./commands/simulator.ts")).simulatorCommand,
  "control-plane": async () => (await import("./commands/control-plane.ts")).controlPlaneCommand,
  dev: async () => (await import("./commands/dev.ts")).devCommand,
  trace: async () => (await import("./commands/trace.ts")).traceCommand,
  import: async () => (await import("./commands/import.ts")).importCommand,
  uninstall: async () => (await import("./commands/uninstall.ts")).uninstallCommand,
};

/** The command of that name, loaded; undefined when there is none. */
export async function findCommand(name: string): Promise<AnyCommand | undefined> {
  return Object.hasOwn(commands, name) ? await commands[name]?.() : undefined;
}

export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  context: CommandContext = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    context.stdout.write(await usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "version") {
    context.stdout.write(`${versionLine(readBuildInfo())}\n`);
    return 0;
  }
  const command = await findCommand(name);
  if (command === undefined) {
    const near = closest(name, Object.keys(commands));
    const hint = near === undefined ? 'run "berth --help" for the commands' : `did you mean "berth ${near}"?`;
    context.stderr.write(`berth: unknown command "${name}"\n${hint}\n`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    context.stdout.write(commandUsage(command));
    return 0;
  }
  try {
    return await command.run(parseConfig(command, rest, env), context);
  } catch (error) {
    if (error instanceof UsageError) {
      // The error and what to do, not the whole usage: the last line is what a person reads first.
      const hint = error.hint ?? `run "berth ${command.name} --help" for its flags`;
      context.stderr.write(`berth ${command.name}: ${error.message}\n${hint}\n`);
      return 2;
    }
    context.stderr.write(
      `berth ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

async function usage(): Promise<string> {
  const all = await Promise.all(Object.values(commands).map((load) => load()));
  const width = Math.max(...all.map((c) => c.name.length));
  const lines = all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: berth <command> [flags]\n\nCommands:\n${lines.join("\n")}\n\nRun "berth <command> --help" for its flags, "berth --version" for the build.\n`;
}

function commandUsage(command: AnyCommand): string {
  const lines = Object.entries(command.flags).map(([flag, spec]) => {
    const value = spec.type === "boolean" ? "" : " VALUE";
    const repeat = spec.multiple ? " (repeatable)" : "";
    const short = spec.short === undefined ? "" : `-${spec.short}, `;
    return `  ${short}--${flag}${value}\n      ${spec.description}${repeat} [env ${envName(flag)}]`;
  });
  const positionals = command.positionals === undefined ? "" : ` ${command.positionals}`;
  return `Usage: berth ${command.name}${positionals} [flags]\n\n${command.summary}\n\nFlags:\n${lines.join("\n")}\n`;
}
