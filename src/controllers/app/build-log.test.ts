import { describe, expect, it } from "vitest";
import { afterFailedRead, buildLogDue, buildLogNote, failedStepTail } from "./build-log.ts";

const log = (step: string, message: string) => `2030-01-01T00:00:00.000Z [${step}] ${message}`;

describe("failedStepTail", () => {
  it.each([
    [
      "keeps only the failed step's lines",
      [log("clone", "cloning"), log("install", "npm ci"), log("install", "ERROR"), log("build", "done")],
      "install",
      [log("install", "npm ci"), log("install", "ERROR")],
    ],
    [
      "keeps every line when none names the step (the service's format may differ)",
      ["step one", "step two failed"],
      "install",
      ["step one", "step two failed"],
    ],
    ["keeps every line when the step is unknown", ["a", "", "b"], undefined, ["a", "b"]],
  ])("%s", (_name, lines, step, expected) => {
    expect(failedStepTail(lines.join("\n"), step, []).split("\n")).toEqual(expected);
  });

  it("keeps the last 20 lines", () => {
    const lines = Array.from({ length: 50 }, (_, i) => log("build", `line ${i}`));
    const tail = failedStepTail(lines.join("\n"), "build", []).split("\n");
    expect(tail).toHaveLength(20);
    expect(tail[19]).toContain("line 49");
    expect(tail[0]).toContain("line 30");
  });

  it("masks every secret value berth sent, the longest first, and ignores values too short to mask", () => {
    const tail = failedStepTail([log("build", "DB=hunter2-long and hunter2 and id=ab")].join("\n"), "build", [
      "hunter2",
      "hunter2-long",
      "ab",
    ]);
    expect(tail).toContain("DB=**** and **** and id=ab");
    expect(tail).not.toContain("hunter2");
  });

  it("bounds each line and the whole tail (the CRD's maxLength)", () => {
    const lines = Array.from({ length: 20 }, () => log("build", "x".repeat(1000)));
    const tail = failedStepTail(lines.join("\n"), "build", []);
    expect(tail.length).toBeLessThanOrEqual(4096);
    expect(tail.split("\n").every((line) => line.length <= 200)).toBe(true);
  });
});

describe("reading the log", () => {
  it.each([
    ["never read", undefined, 0, true],
    ["read for another build", { buildId: "bld_old", tail: "x" }, 0, true],
    ["read for this build", { buildId: "bld_1", tail: "x" }, 0, false],
    ["a failed read not due yet", { buildId: "bld_1", unreadable: "5xx", retryAt: 100 }, 50, false],
    ["a failed read due again", { buildId: "bld_1", unreadable: "5xx", retryAt: 100 }, 100, true],
    ["failed reads given up", { buildId: "bld_1", unreadable: "5xx" }, 1e9, false],
  ])("%s", (_name, known, now, due) => {
    expect(buildLogDue("bld_1", known, now)).toBe(due);
  });

  it("waits twice as long after each failed read and gives up after five", () => {
    let known = afterFailedRead("bld_1", undefined, "503", 0, 1000);
    expect(known.retryAt).toBe(1000);
    known = afterFailedRead("bld_1", known, "503", 1000, 1000);
    expect(known.retryAt).toBe(3000);
    for (let i = 0; i < 3; i++) known = afterFailedRead("bld_1", known, "503", 0, 1000);
    expect(known).toMatchObject({ attempts: 5, retryAt: undefined, unreadable: "503" });
  });

  it("keeps the tail's end in the event's 1 kB note", () => {
    const tail = `${"a".repeat(2000)}\nERROR: the cause`;
    const note = buildLogNote("bld_1", tail);
    expect(note.length).toBeLessThanOrEqual(1024);
    expect(note).toContain("ERROR: the cause");
    expect(note.startsWith("build bld_1 failed")).toBe(true);
  });
});
