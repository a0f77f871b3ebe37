import { type AnyCommand, type CommandContext, envName, parseConfig, UsageError } from "./command.ts";
import { controlPlaneCommand } from "./commands/control-plane.ts";
import { devCommand } from "./commands/dev.ts";
import { operatorCommand } from "./commands/operator.ts";
import { simulatorCommand } from "./commands/simulator.ts";

/** Every built command; a command appears here when it works, never as a stub. */
export const commands: readonly AnyCommand[] = [
  operatorCommand,
  simulatorCommand,
  controlPlaneCommand,
  devCommand,
];

export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  context: CommandContext = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    context.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    context.stderr.write(`berth: unknown command "${name}"\n\n${usage()}`);
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
      context.stderr.write(`berth ${command.name}: ${error.message}\n\n${commandUsage(command)}`);
      return 2;
    }
    context.stderr.write(
      `berth ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: berth <command> [flags]\n\nCommands:\n${lines.join("\n")}\n\nRun "berth <command> --help" for its flags.\n`;
}

function commandUsage(command: AnyCommand): string {
  const lines = Object.entries(command.flags).map(([flag, spec]) => {
    const value = spec.type === "boolean" ? "" : " VALUE";
    const repeat = spec.multiple ? " (repeatable)" : "";
    return `  --${flag}${value}\n      ${spec.description}${repeat} [env ${envName(flag)}]`;
  });
  return `Usage: berth ${command.name} [flags]\n\n${command.summary}\n\nFlags:\n${lines.join("\n")}\n`;
}
