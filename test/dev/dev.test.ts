import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = await mkdtemp(path.join(os.tmpdir(), "berth-dev-test-"));
let child: ChildProcess | undefined;

afterAll(async () => {
  child?.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Processes whose command line mentions `text` (the dev process itself has the dir in its argv),
 * read from /proc: this test runs on Linux, and a missing tool must not read as "none left".
 */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
    } catch {
      continue; // exited while listed
    }
    if (commandLine.includes(text)) found.push(`${entry} ${commandLine}`);
  }
  return found;
}

function printedPort(output: string, pattern: RegExp): number {
  const port = Number(pattern.exec(output)?.[1]);
  if (!(port > 0)) throw new Error(`berth dev printed no ${pattern}:\n${output}`);
  return port;
}

describe("berth dev", () => {
  it("brings the sample App to Ready, then Ctrl-C stops everything and frees its ports", async () => {
    // Port 0 everywhere: dev binds free ports and prints the URLs it bound.
    child = spawn(
      process.execPath,
      [
        "src/main.ts",
        "dev",
        "--dir",
        dir,
        "--simulator-port",
        "0",
        "--metrics-addr",
        "127.0.0.1:0",
        "--health-addr",
        "127.0.0.1:0",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));

    const started = Date.now();
    while (!/^App\s+hello\s+True\s+/m.test(output)) {
      if (Date.now() - started > 90_000) throw new Error(`sample App not Ready within 90s:\n${output}`);
      if (child.exitCode !== null) throw new Error(`berth dev exited early:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // The live table shows what the App costs per hour, and the demo key's runway once its balance is read.
    while (
      !/^App\s+hello\s+True\s+.*\s\d+\.\d{4,} USD\s/m.test(output) ||
      !/^RUNWAY key-[0-9a-f]{12}: \d+\.\d h \(balance \d/m.test(output)
    ) {
      if (Date.now() - started > 90_000)
        throw new Error(`no cost or runway in the table within 90s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(output).toContain(`kubectl --kubeconfig ${path.join(dir, "kubeconfig")} get berth`);
    const ports = {
      simulator: printedPort(output, /simulator: http:\/\/127\.0\.0\.1:(\d+)\/v1/),
      metrics: printedPort(output, /metrics: http:\/\/127\.0\.0\.1:(\d+)\/metrics/),
      health: printedPort(output, /health: http:\/\/127\.0\.0\.1:(\d+)\/healthz/),
    };
    expect(await portOpen(ports.metrics)).toBe(true);
    expect(await portOpen(ports.health)).toBe(true);
    const apiserverPort = Number(
      /server: https:\/\/127\.0\.0\.1:(\d+)/.exec(await readFile(path.join(dir, "kubeconfig"), "utf8"))?.[1],
    );
    expect(await portOpen(apiserverPort)).toBe(true);

    // While it runs, the check below sees its processes (so "none" after the stop means none).
    expect(processesMentioning(dir).length).toBeGreaterThan(0);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(output).toContain("stopped");
    expect(processesMentioning(dir)).toEqual([]);
    for (const port of [...Object.values(ports), apiserverPort]) expect(await portOpen(port)).toBe(false);
  }, 150_000);
});
