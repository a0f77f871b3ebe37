import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { z } from "zod";
import type { Logger } from "../telemetry/logger.ts";
import { ensureBinary } from "./binary.ts";
import { ControlPlaneError } from "./errors.ts";
import { renderKubeconfig } from "./kubeconfig.ts";

export interface ControlPlaneOptions {
  /** Directory that receives `kubeconfig` and `control-plane.log`. */
  dir: string;
  logger: Logger;
  readyTimeoutMs?: number;
  binDir?: string;
  /** Keep etcd data here across restarts (the caller owns it); by default a temp dir removed on stop. */
  dataDir?: string;
  /** The apiserver's port; by default a free one. Pass the old port to restart in place. */
  port?: number;
  /** Progress lines while the binary is built on first use. */
  progress?: (line: string) => void;
}

export interface ControlPlane {
  server: string;
  kubeconfigPath: string;
  logPath: string;
  pid: number;
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<void>;
  /** Terminates the apiserver and etcd and removes their data. Safe to call twice. */
  stop(): Promise<void>;
}

const announcementSchema = z.object({
  server: z.url(),
  caFile: z.string(),
  tokenFile: z.string(),
});

const stopGraceMs = 20_000;

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const binary = await ensureBinary({
    logger: options.logger,
    ...(options.binDir ? { binDir: options.binDir } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
  });
  await mkdir(options.dir, { recursive: true });
  const ephemeral = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), "berth-control-plane-")));
  const logPath = path.join(options.dir, "control-plane.log");
  const kubeconfigPath = path.join(options.dir, "kubeconfig");
  const log = createWriteStream(logPath);

  // stdin stays open for the child's lifetime: if this process dies, the child sees EOF and stops.
  const args = ["--data-dir", dataDir, "--exit-on-stdin-close", "--port", String(options.port ?? 0)];
  const child = spawn(binary, ephemeral ? [...args, "--ephemeral"] : args, {
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.pipe(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const cleanup = async () => {
    await exited;
    if (ephemeral) await rm(dataDir, { recursive: true, force: true });
  };

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= terminate(child, exited).then(cleanup);
    return stopping;
  };

  try {
    const announcement = await readAnnouncement(child, exited, logPath);
    const caData = await readFile(announcement.caFile);
    const token = (await readFile(announcement.tokenFile, "utf8")).trim();
    await waitReady(announcement.server, caData, token, exited, options.readyTimeoutMs ?? 120_000, logPath);
    await writeFile(kubeconfigPath, renderKubeconfig({ server: announcement.server, caData, token }), {
      mode: 0o600,
    });
    void exited.then(() => log.end());
    return { server: announcement.server, kubeconfigPath, logPath, pid: child.pid ?? -1, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function readAnnouncement(child: ChildProcess, exited: Promise<void>, logPath: string) {
  if (!child.stdout) throw new ControlPlaneError("start_failed", "control plane has no stdout");
  const lines = createInterface({ input: child.stdout });
  const first = new Promise<string>((resolve) => lines.once("line", resolve));
  const line = await Promise.race([first, exited.then(() => undefined)]);
  if (line === undefined) {
    throw new ControlPlaneError(
      "start_failed",
      `control plane exited during start-up:\n${await tail(logPath)}`,
    );
  }
  return announcementSchema.parse(JSON.parse(line));
}

async function waitReady(
  server: string,
  ca: Buffer,
  token: string,
  exited: Promise<void>,
  timeoutMs: number,
  logPath: string,
): Promise<void> {
  const dispatcher = new Agent({ connect: { ca } });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (gone) {
        throw new ControlPlaneError(
          "start_failed",
          `control plane exited before ready:\n${await tail(logPath)}`,
        );
      }
      try {
        const response = await request(`${server}/readyz`, {
          dispatcher,
          headers: { authorization: `Bearer ${token}` },
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        await response.body.dump();
        if (response.statusCode === 200) return;
      } catch {
        // Not listening yet.
      }
      await sleep(250);
    }
    throw new ControlPlaneError(
      "not_ready",
      `control plane not ready after ${timeoutMs / 1000}s; its log is ${logPath}:\n${await tail(logPath)}`,
    );
  } finally {
    await dispatcher.close();
  }
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), stopGraceMs);
  await exited;
  clearTimeout(timer);
}

async function tail(file: string, lines = 30): Promise<string> {
  try {
    return (await readFile(file, "utf8")).split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}
