import { chmod, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { buildProgressLine, ensureBinary } from "./binary.ts";

/** A stand-in `go`: `list -deps` names 4 packages; `build -v` names 3 on stderr over ~300 ms. */
const fakeGo = `#!/bin/sh
case "$1" in
  version) echo "go version go1.24.0 linux/amd64" ;;
  list) printf 'runtime\\nk8s.io/api/core/v1\\nk8s.io/apiserver\\nmain\\n' ;;
  build)
    for arg in "$@"; do case "$prev" in -o) out="$arg" ;; esac; prev="$arg"; done
    for pkg in runtime k8s.io/api/core/v1 k8s.io/apiserver; do echo "$pkg" >&2; sleep 0.1; done
    if [ -n "$FAIL" ]; then echo "./main.go:3:2: undefined: nope" >&2; exit 1; fi
    echo binary > "$out" ;;
esac
`;

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function setUp(): Promise<{ go: string; binDir: string }> {
  dir = await mkdtemp(path.join(os.tmpdir(), "berth-binary-test-"));
  const go = path.join(dir, "go");
  await writeFile(go, fakeGo);
  await chmod(go, 0o755);
  return { go, binDir: path.join(dir, "bin") };
}

describe("ensureBinary", () => {
  it("shows the build's progress every few seconds: packages compiled of the total and the elapsed time", async () => {
    const { go, binDir } = await setUp();
    const lines: string[] = [];
    const binary = await ensureBinary({
      logger: createLogger({ level: "silent" }),
      binDir,
      env: { ...process.env, GO: go },
      progress: (line) => lines.push(line),
      progressEveryMs: 50,
    });
    expect(await readdir(binDir)).toEqual([path.basename(binary)]);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatch(/^building the control plane: [23] of 4 packages compiled, \ds$/);

    lines.length = 0;
    await ensureBinary({
      logger: createLogger({ level: "silent" }),
      binDir,
      env: { GO: go },
      progress: (l) => lines.push(l),
    });
    expect(lines).toEqual([]);
  });

  it("reports a failed build with Go's error, without the package names of -v", async () => {
    const { go, binDir } = await setUp();
    const built = ensureBinary({
      logger: createLogger({ level: "silent" }),
      binDir,
      env: { ...process.env, GO: go, FAIL: "1" },
    });
    await expect(built).rejects.toThrow(/undefined: nope/);
    await expect(built).rejects.not.toThrow(/k8s\.io\/apiserver/);
  });

  it("words a progress line without the total until go list knows it", () => {
    expect(buildProgressLine(12_400, 7, undefined)).toBe(
      "building the control plane: 7 packages compiled, 12s",
    );
    expect(buildProgressLine(65_000, 300, 1650)).toBe(
      "building the control plane: 300 of 1650 packages compiled, 65s",
    );
  });
});
