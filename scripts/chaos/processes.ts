import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import path from "node:path";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import type { Logger } from "../../src/telemetry/logger.ts";

/** Reads a child's stdout until `pattern` shows up; resolves with what it read, then lets the rest flow. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => fail(new Error(`no ${pattern} within ${timeoutMs} ms: ${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) done();
    };
    const onExit = (code: number | null) => fail(new Error(`exited (${code}) before ${pattern}: ${output}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      child.stdout?.resume();
    };
    const done = () => {
      cleanup();
      resolve(output);
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface OperatorCommand {
  /** Arguments after `node`. */
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * The operator as its own process, killed with SIGKILL and started again at once. Every life
 * appends its stdout and stderr to one log file, which is searched for API keys at the end.
 */
export class OperatorSupervisor {
  readonly logPath: string;
  readonly #command: OperatorCommand;
  readonly #logger: Logger;
  #child: ChildProcess | undefined;
  #killing = false;
  #stopped = false;
  #queue: Promise<void> = Promise.resolve();
  kills = 0;
  starts = 0;
  /** The pid of every operator it started, in order (a test checks none outlives the run). */
  readonly pids: number[] = [];
  /** Exits nobody asked for (a crash), with their exit code or signal. */
  readonly unexpectedExits: string[] = [];

  constructor(command: OperatorCommand, dir: string, logger: Logger) {
    this.#command = command;
    this.#logger = logger;
    this.logPath = path.join(dir, "operator.log");
  }

  start(): void {
    if (this.#stopped) return;
    const log = openSync(this.logPath, "a");
    const child = spawn(process.execPath, this.#command.args, {
      stdio: ["ignore", log, log],
      env: this.#command.env,
    });
    closeSync(log);
    this.starts++;
    if (child.pid !== undefined) this.pids.push(child.pid);
    child.once("exit", (code, signal) => {
      if (this.#child !== child || this.#killing) return;
      this.unexpectedExits.push(signal ?? `exit ${code}`);
      this.#logger.warn({ code, signal }, "operator exited by itself; starting it again in 1 s");
      setTimeout(() => {
        if (this.#child === child) this.start();
      }, 1000);
    });
    this.#child = child;
  }

  /**
   * SIGKILL, wait for the exit, start again; whether a running operator was killed. One at a time:
   * a scheduled kill and a control-plane restart's never overlap (two would start two operators).
   */
  killAndRestart(): Promise<boolean> {
    const next = this.#queue.then(async () => {
      const killed = await this.kill();
      this.start();
      return killed;
    });
    this.#queue = next.then(() => undefined);
    return next;
  }

  /** Whether a running operator was killed (false while none runs, e.g. between a crash and its restart). */
  async kill(): Promise<boolean> {
    const child = this.#child;
    if (child === undefined || !running(child)) return false;
    this.#killing = true;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    this.#killing = false;
    this.kills++;
    return true;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const child = this.#child;
    this.#child = undefined;
    if (child !== undefined) await stopProcess(child, 10_000);
  }
}

/** The local control plane, with its etcd data kept so it can restart in place (same port, same objects). */
export class RestartableControlPlane {
  readonly #dir: string;
  readonly #logger: Logger;
  #current: ControlPlane;
  restarts = 0;

  private constructor(dir: string, logger: Logger, current: ControlPlane) {
    this.#dir = dir;
    this.#logger = logger;
    this.#current = current;
  }

  static async start(dir: string, logger: Logger): Promise<RestartableControlPlane> {
    const current = await startControlPlane({ dir, logger, dataDir: path.join(dir, "etcd") });
    return new RestartableControlPlane(dir, logger, current);
  }

  get kubeconfigPath(): string {
    return this.#current.kubeconfigPath;
  }

  get pid(): number {
    return this.#current.pid;
  }

  /** Stops the apiserver and etcd, then starts them on the same port and data (new credentials). */
  async restart(): Promise<void> {
    const port = Number(new URL(this.#current.server).port);
    await this.#current.stop();
    this.#current = await startControlPlane({
      dir: this.#dir,
      logger: this.#logger,
      dataDir: path.join(this.#dir, "etcd"),
      port,
    });
    this.restarts++;
  }

  stop(): Promise<void> {
    return this.#current.stop();
  }
}
