import { ApiError } from "./errors.ts";

const families = ["projects", "apps", "pools"] as const;
const levels = ["read", "write", "admin"] as const;

/** Every scope the service knows, plus `*`. */
export const knownScopes: readonly string[] = [
  "*",
  ...families.flatMap((family) => levels.map((level) => `${family}:${level}`)),
  "monitoring:read",
  "vcs:read",
  "billing:read",
  "billing:write",
  "account:read",
  "account:write",
  "compute:spend",
];

const rank: Record<string, number> = { read: 0, write: 1, admin: 2 };

/** Within a family admin ⊃ write ⊃ read; `compute:spend` stands alone; `*` grants everything. */
export function grants(held: readonly string[], needed: string): boolean {
  if (held.includes("*") || held.includes(needed)) return true;
  const [family, level] = needed.split(":");
  const neededRank = rank[level ?? ""];
  if (neededRank === undefined) return false;
  return held.some((scope) => {
    const [heldFamily, heldLevel] = scope.split(":");
    const heldRank = rank[heldLevel ?? ""];
    return heldFamily === family && heldRank !== undefined && heldRank >= neededRank;
  });
}

export function requireScopes(held: readonly string[], needed: readonly string[]): void {
  const missing = needed.filter((scope) => !grants(held, scope));
  if (missing.length > 0) {
    throw new ApiError(
      403,
      "insufficient_scope",
      `this API key lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
      { requiredScopes: [...needed] },
    );
  }
}
