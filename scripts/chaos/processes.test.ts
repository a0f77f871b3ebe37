import { randomBytes } from "node:crypto";
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

/** A stand-in operator: a node process that lives until killed, its argv carrying `marker`. */
function supervisor(marker: string): OperatorSupervisor {
  const dir = mkdtempSync(path.join(tmpdir(), "berth-supervisor-"));
  dirs.push(dir);
  const command = { args: ["-e", "setInterval(() => {}, 1000)", marker], env: {} };
  return new OperatorSupervisor(command, dir, createLogger({ level: "silent" }));
}

/** The command line of a live process; undefined once no process has that pid. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return undefined;
  }
}

/**
 * The stand-ins still alive, each killed. A pid that outlived its stand-in may have been reused by
 * another process: only one whose command line still carries this test's marker is a stand-in.
 */
function survivors(pids: number[], marker: string): number[] {
  return pids.filter((pid) => {
    if (commandLine(pid)?.includes(marker) !== true) return false;
    process.kill(pid, "SIGKILL");
    return true;
  });
}

const newMarker = () => `berth-supervisor-test-${randomBytes(6).toString("hex")}`;

describe("the operator supervisor", () => {
  it("runs a scheduled kill and a control-plane restart's kill one after the other: each kills, one operator runs", async () => {
    const marker = newMarker();
    const operator = supervisor(marker);
    operator.start();
    try {
      expect(await Promise.all([operator.killAndRestart(), operator.killAndRestart()])).toEqual([true, true]);
      expect({ kills: operator.kills, starts: operator.starts }).toEqual({ kills: 2, starts: 3 });
      expect(operator.pids).toHaveLength(3);
      // The one running is found by its marker: the check below can see a survivor.
      expect(commandLine(operator.pids[2] ?? 0)).toContain(marker);
      expect(operator.unexpectedExits).toEqual([]);
    } finally {
      await operator.stop();
    }
    expect(survivors(operator.pids, marker)).toEqual([]);
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
    const operator = supervisor(newMarker());
    expect(await operator.kill()).toBe(false);
    expect(operator.kills).toBe(0);
  });
});
