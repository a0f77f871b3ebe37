import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// design.md §1: `berth simulator` prints its base URL (ending in /v1) and, without --seed, one
// full-access demo key; stops cleanly on SIGINT/SIGTERM; a bad seed file is a clear error.

function run(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["src/main.ts", "simulator", ...args], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: { ...process.env, BERTH_PORT: "", BERTH_SEED: "" },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (let i = 0; i < 200; i++) {
    const match = pattern.exec(output());
    if (match !== null) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${pattern} in output: ${output()}`);
}

describe("berth simulator", () => {
  it("prints the base URL and a demo key that works, and stops cleanly on SIGTERM", async () => {
    const { child, output, exited } = run(["--port", "0", "--control-api"]);
    try {
      const [, baseUrl] = await waitFor(output, /listening at (http:\/\/127\.0\.0\.1:\d+\/v1)\n/);
      const [, key] = await waitFor(output, /demo API key \(full access\): (\S+)\n/);
      const me = await fetch(`${baseUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect((await fetch(`${baseUrl?.replace("/v1", "/_sim")}/clock`)).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(output()).toContain("simulator stopped");
  });

  it("serves the users of a seed file, without a demo key", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "berth-seed-"));
    const seed = path.join(dir, "seed.json");
    await writeFile(
      seed,
      JSON.stringify({
        users: [{ id: "ci", email: "ci@example.com", balance: 10, keys: [{ token: "ci-key-0001" }] }],
      }),
    );
    const { child, output, exited } = run(["--port", "0", "--seed", seed]);
    try {
      const [, baseUrl] = await waitFor(output, /listening at (\S+\/v1)\n/);
      const me = await fetch(`${baseUrl}/me`, { headers: { authorization: "Bearer ci-key-0001" } });
      expect(((await me.json()) as { user: { id: string } }).user.id).toBe("ci");
      expect(output()).not.toContain("demo API key");
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
  });

  it("refuses a seed file that doesn't validate, naming the field, with exit code 2", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "berth-seed-"));
    const seed = path.join(dir, "seed.json");
    await writeFile(seed, JSON.stringify({ users: [{ id: "ci", email: "not-an-email", keys: [] }] }));
    const { output, exited } = run(["--port", "0", "--seed", seed]);
    expect(await exited).toBe(2);
    expect(output()).toMatch(/users\[0\]\.email/);
  });
});
