import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";

/** A `berth operator` process, its stdout and stderr kept for the failure message. */
export interface OperatorProcess {
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
  stderr(): string;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts `node <main> operator <args>` with the Node running the tests and this shell's environment
 * minus BERTH_* and KUBECONFIG, so only the flags given count. `main` is a berth checkout's
 * `src/main.ts`, this one's or an older release's.
 */
export function spawnOperator(main: string, args: string[]): OperatorProcess {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("BERTH_") && name !== "KUBECONFIG"),
  );
  const child = spawn(process.execPath, [main, "operator", "--metrics-addr=", "--health-addr=", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOf(child);
}

/** A spawned operator's output, its exit and a kill that leaves an exited process alone. */
export function processOf(child: ChildProcessByStdio<null, Readable, Readable>): OperatorProcess {
  let output = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    output: () => output,
    stderr: () => stderr,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** The lines a person reads: every line that is not a JSON log line. */
export function plainLines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "" && !line.startsWith("{"));
}
