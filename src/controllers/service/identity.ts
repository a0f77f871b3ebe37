import type { HostingClient, Me } from "../../hosting/index.ts";

export interface IdentityCacheOptions {
  /** How long a `/me` answer is trusted (default 5 min). */
  ttlMs?: number;
  /** How long a failed `/me` is given back without asking again, doubling per failure in a row. */
  failureBackoffMs?: { first: number; max: number };
  now?: () => number;
}

interface Entry {
  me: Promise<Me>;
  /** Until when this entry answers; a failure's is set once it failed. */
  until: number;
  /** Failures in a row before this read (0 after a success). */
  failures: number;
}

/**
 * `GET /me` per credential and base URL, cached: scopes and project pinning decide which actions a
 * key may take before any request is spent on them. Concurrent callers share one request. A failed
 * read is given back to every resource on that key for a while (5 s, doubling to a minute while it
 * keeps failing), so a service that can't be reached costs a few calls a minute, whichever kinds
 * use the key; a fixed Secret (another key or base URL) is another entry, read at once.
 * `invalidate` (after a 401 or 403) makes the next caller read again.
 */
export class IdentityCache {
  readonly #ttlMs: number;
  readonly #failureBackoff: { first: number; max: number };
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: IdentityCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#failureBackoff = options.failureBackoffMs ?? { first: 5_000, max: 60_000 };
    this.#now = options.now ?? Date.now;
  }

  /** `baseUrl` tells apart the same key at two addresses (a Secret whose baseUrl was fixed). */
  get(client: HostingClient, baseUrl = ""): Promise<Me> {
    const now = this.#now();
    const key = `${client.credentialId} ${baseUrl}`;
    const cached = this.#entries.get(key);
    if (cached !== undefined && now < cached.until) return cached.me;
    const failures = cached?.failures ?? 0;
    const entry: Entry = {
      me: client.getMe().then((me) => ({ ...me })),
      until: Number.POSITIVE_INFINITY,
      failures,
    };
    this.#entries.set(key, entry);
    entry.me.then(
      () => {
        entry.until = this.#now() + this.#ttlMs;
        entry.failures = 0;
      },
      () => {
        const { first, max } = this.#failureBackoff;
        entry.until = this.#now() + Math.min(max, first * 2 ** failures);
        entry.failures = failures + 1;
      },
    );
    return entry.me;
  }

  invalidate(credentialId: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(`${credentialId} `)) this.#entries.delete(key);
  }
}
