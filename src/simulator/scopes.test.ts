import { describe, expect, it } from "vitest";
import { grants, requireScopes } from "./scopes.ts";

describe("grants", () => {
  it.each([
    [["*"], "compute:spend", true],
    [["*"], "pools:admin", true],
    [["apps:admin"], "apps:write", true],
    [["apps:admin"], "apps:read", true],
    [["apps:write"], "apps:read", true],
    [["apps:write"], "apps:admin", false],
    [["apps:read"], "apps:write", false],
    [["apps:admin"], "projects:read", false],
    [["apps:admin", "projects:admin", "pools:admin"], "compute:spend", false],
    [["compute:spend"], "compute:spend", true],
    [["billing:write"], "billing:read", true],
    [[], "apps:read", false],
  ])("%j grants %s: %s", (held, needed, expected) => {
    expect(grants(held, needed)).toBe(expected);
  });

  it("requireScopes names every scope the operation needs", () => {
    expect(() => requireScopes(["apps:write"], ["apps:write", "compute:spend"])).toThrow(
      expect.objectContaining({
        status: 403,
        code: "insufficient_scope",
        extra: { requiredScopes: ["apps:write", "compute:spend"] },
      }),
    );
  });
});
