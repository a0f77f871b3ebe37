import type { Me } from "../../hosting/index.ts";
import { type Problem, stalledBy } from "./failure.ts";
import { Reason } from "./reasons.ts";

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

/** Stalled KeyProjectRestricted when the key may not touch `projectId`, so nothing is sent. */
export function pinningProblem(me: Me, projectId: string, purpose: string): Problem | undefined {
  if (keyAllowsProject(me, projectId)) return undefined;
  return stalledBy(
    Reason.KeyProjectRestricted,
    `the API key is pinned to projects ${pinnedProjects(me).join(", ")}, not ${projectId}; use a key allowed on it to ${purpose}`,
  );
}

/** Stalled MissingScopes naming what the key lacks for `purpose`, so nothing is sent. */
export function scopeProblem(me: Me, needed: readonly string[], purpose: string): Problem | undefined {
  const missing = missingScopes(me, needed);
  if (missing.length === 0) return undefined;
  const plural = missing.length > 1;
  return stalledBy(
    Reason.MissingScopes,
    `the API key lacks scope${plural ? "s" : ""} ${missing.join(", ")} needed to ${purpose}; add ${plural ? "them" : "it"} to the key or use another key`,
  );
}
