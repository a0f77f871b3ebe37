import type { Me } from "../../hosting/index.ts";

const rank: Record<string, number> = { read: 0, write: 1, admin: 2 };

/** The service's rules: within a family admin ⊃ write ⊃ read; `compute:spend` stands alone; `*` is all. */
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

/** Scopes of `needed` the key lacks, in the order given, without repeats. */
export function missingScopes(me: Me, needed: readonly string[]): string[] {
  const held = me.apiKey?.scopes ?? [];
  return [...new Set(needed)].filter((scope) => !grants(held, scope));
}

/** Projects the key is pinned to; empty when it is not pinned. */
export function pinnedProjects(me: Me): readonly string[] {
  return me.apiKey?.projectIds ?? [];
}

export function keyAllowsProject(me: Me, projectId: string): boolean {
  const pinned = pinnedProjects(me);
  return pinned.length === 0 || pinned.includes(projectId.toLowerCase());
}
