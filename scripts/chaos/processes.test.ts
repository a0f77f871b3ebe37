import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/telemetry/logger.ts";
import { OperatorSupervisor } from "./processes.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in operator: a node process that logs its pid and lives until killed. */
function supervisor(): OperatorSupervisor {
  const dir = mkdtempSync(path.join(tmpdir(), "berth-supervisor-"));
  dirs.push(dir);
  const command = { args: ["-e", "console.log(process.pid); setInterval(() => {}, 1000)"], env: {} };
  return new OperatorSupervisor(command, dir, createLogger({ level: "silent" }));
}

/** The stand-ins still alive, by the pids they logged; each is killed. */
async function survivors(logPath: string): Promise<number[]> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const pids = readFileSync(logPath, "utf8").split("\n").filter(Boolean).map(Number);
  return pids.filter((pid) => {
    try {
      process.kill(pid, "SIGKILL");
      return true;
    } catch {
      return false;
    }
  });
}

describe("the operator supervisor", () => {
  it("runs a scheduled kill and a control-plane restart's kill one after the other: each kills, one operator runs", async () => {
    const operator = supervisor();
    operator.start();
    try {
      expect(await Promise.all([operator.killAndRestart(), operator.killAndRestart()])).toEqual([true, true]);
      expect({ kills: operator.kills, starts: operator.starts }).toEqual({ kills: 2, starts: 3 });
      expect(operator.unexpectedExits).toEqual([]);
    } finally {
      await operator.stop();
    }
    expect(await survivors(operator.logPath)).toEqual([]);
  });

  it("records an exit nobody asked for, and starts the operator again", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "berth-supervisor-"));
    dirs.push(dir);
    const crashing = { args: ["-e", "process.exit(3)"], env: {} };
    const operator = new OperatorSupervisor(crashing, dir, createLogger({ level: "silent" }));
    operator.start();
    try {
      await vi.waitFor(() => expect(operator.starts).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
    } finally {
      await operator.stop();
    }
    expect(operator.unexpectedExits[0]).toBe("exit 3");
    expect(operator.kills).toBe(0);
  });

  it("does not count a kill when no operator runs", async () => {
    const operator = supervisor();
    expect(await operator.kill()).toBe(false);
    expect(operator.kills).toBe(0);
  });
});
