import { describe, expect, it } from "vitest";
import type { Me } from "../../hosting/index.ts";
import { grants, keyAllowsProject, missingScopes } from "./scopes.ts";

function me(scopes: string[], projectIds: string[] = []): Me {
  return {
    user: { id: "u1", email: "u@example.test" },
    apiKey: { id: "k1", scopes, projectIds, expiresAt: null },
    oauthClient: null,
  };
}

describe("scopes", () => {
  it.each([
    [["*"], "apps:admin", true],
    [["apps:admin"], "apps:write", true],
    [["apps:write"], "apps:read", true],
    [["apps:read"], "apps:write", false],
    [["apps:admin"], "compute:spend", false],
    [["compute:spend"], "compute:spend", true],
    [["projects:admin"], "apps:read", false],
  ])("%j grants %s: %s", (held, needed, expected) => {
    expect(grants(held, needed)).toBe(expected);
  });

  it("lists only the missing scopes, once each", () => {
    expect(missingScopes(me(["apps:write"]), ["apps:write", "compute:spend", "compute:spend"])).toEqual([
      "compute:spend",
    ]);
  });

  it("treats an empty projectIds list as unpinned", () => {
    expect(keyAllowsProject(me(["*"]), "a".repeat(24))).toBe(true);
    expect(keyAllowsProject(me(["*"], ["b".repeat(24)]), "a".repeat(24))).toBe(false);
    expect(keyAllowsProject(me(["*"], ["b".repeat(24)]), "B".repeat(24))).toBe(true);
  });
});
