import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "./node-version.ts";

describe("the Node.js version check", () => {
  it("names the version it found and what to do", () => {
    expect(nodeVersionProblem("20.20.2")).toBe(
      "berth needs Node.js 24 (this is 20.20.2); run it with npx berth, or install Node 24",
    );
  });

  it.each(["24.0.0", "24.21.0", "26.1.0"])("accepts %s", (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });
});
