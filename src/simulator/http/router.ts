import type { Method } from "./route.ts";

interface Compiled<R> {
  route: R;
  segments: string[];
}

export type Match<R> =
  | { kind: "found"; route: R; params: Map<string, string> }
  | { kind: "wrong_method"; allowed: Method[] }
  | { kind: "not_found" };

/** Matches `METHOD /a/{b}/c` templates segment by segment; path values are raw (not yet decoded). */
export class Router<R extends { method: Method; path: string }> {
  readonly #bySize = new Map<number, Compiled<R>[]>();

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const segments = route.path.split("/").slice(1);
      const list = this.#bySize.get(segments.length) ?? [];
      list.push({ route, segments });
      this.#bySize.set(segments.length, list);
    }
    // Literal segments win over path values at the same position (/servers/orders before /servers/{address}).
    for (const list of this.#bySize.values()) {
      list.sort((a, b) => specificity(b.segments) - specificity(a.segments));
    }
  }

  match(method: string, path: string): Match<R> {
    const parts = path.split("/").slice(1);
    const allowed: Method[] = [];
    for (const candidate of this.#bySize.get(parts.length) ?? []) {
      const params = matchSegments(candidate.segments, parts);
      if (params === undefined) continue;
      if (candidate.route.method === method) return { kind: "found", route: candidate.route, params };
      if (!allowed.includes(candidate.route.method)) allowed.push(candidate.route.method);
    }
    return allowed.length > 0 ? { kind: "wrong_method", allowed } : { kind: "not_found" };
  }
}

function matchSegments(template: string[], parts: string[]): Map<string, string> | undefined {
  const params = new Map<string, string>();
  for (let i = 0; i < template.length; i++) {
    const want = template[i] ?? "";
    const got = parts[i] ?? "";
    if (want.startsWith("{")) {
      if (got === "") return undefined;
      params.set(want.slice(1, -1), got);
    } else if (want !== got) {
      return undefined;
    }
  }
  return params;
}

function specificity(segments: string[]): number {
  return segments.reduce((score, s, i) => score + (s.startsWith("{") ? 0 : 2 ** (segments.length - i)), 0);
}
