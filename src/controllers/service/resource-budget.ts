import { StringPool } from "../../runtime/index.ts";

/** A key's rate limit as its client knows it. */
export interface KeyBudget {
  limit: number;
  windowMs: number;
}

/** Where a resource stands: its generation, whether it is being deleted, and a digest of its status. */
export interface ResourceState {
  generation: number;
  deleting: boolean;
  /**
   * What it acts on besides its spec: the versions of the credentials Secrets it may use and its
   * request annotations (reconcile, restart, rebuild, replace). A change is progress to act on.
   */
  inputs: string;
  /** A digest of what the reconcile learned (the status it writes, request IDs and timestamps aside). */
  learned: string;
}

export type BudgetVerdict =
  | { capped: false }
  | {
      capped: true;
      /** When the oldest counted request leaves the window. */
      retryAfterMs: number;
      spent: number;
      cap: number;
      /** First refusal since the resource last made progress (warn once). */
      first: boolean;
    };

interface Entry {
  credentialId: string;
  /** When each counted request left, oldest first. */
  sends: number[];
  budget: KeyBudget;
  generation: number | undefined;
  deleting: boolean;
  inputs: string;
  /** Digests of the states learned lately: a state seen again is no news. */
  learned: string[];
  warned: boolean;
}

/** A resource's key before its first call: no limit known yet (shared by every such resource). */
const unknownBudget: KeyBudget = Object.freeze({ limit: Number.POSITIVE_INFINITY, windowMs: 60_000 });

/** States remembered per resource, so a resource cycling through a few states makes no progress. */
const rememberedStates = 8;

/**
 * What each resource spent of its key's budget in the key's window (a minute at the real service),
 * so no single resource takes more than `share` of it without making progress: a new generation, a
 * deletion, new inputs (credentials, a request annotation), or a state not seen lately. Progress forgives what was spent.
 */
export class ResourceBudget {
  readonly #share: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /** Most resources stand in the same few states: their inputs and digests are kept once. */
  readonly #strings = new StringPool(256);

  /** `share` 0 turns the cap off. */
  constructor(share: number, now: () => number) {
    this.#share = share;
    this.#now = now;
  }

  /** Resources followed now. */
  get size(): number {
    return this.#entries.size;
  }

  /** A request of `resource` left under `credentialId`. */
  spend(resource: string, credentialId: string, budget: KeyBudget): void {
    if (this.#share <= 0) return;
    const entry = this.#entry(resource);
    if (entry.credentialId !== credentialId) {
      entry.credentialId = credentialId;
      entry.sends = [];
    }
    entry.budget = budget;
    entry.sends.push(this.#now());
  }

  /** Whether `resource`, now in `state` (generation and deletion), may call the service. */
  check(resource: string, state: Omit<ResourceState, "learned">): BudgetVerdict {
    const entry = this.#entries.get(resource);
    if (entry === undefined || this.#share <= 0) return { capped: false };
    if (
      entry.generation !== state.generation ||
      entry.deleting !== state.deleting ||
      entry.inputs !== state.inputs
    )
      return { capped: false };
    const now = this.#now();
    const { limit, windowMs } = entry.budget;
    while (entry.sends.length > 0 && (entry.sends[0] ?? 0) <= now - windowMs) entry.sends.shift();
    const cap = Math.max(1, Math.floor(limit * this.#share));
    if (entry.sends.length < cap) return { capped: false };
    const first = !entry.warned;
    entry.warned = true;
    const retryAfterMs = Math.max(1000, (entry.sends[0] ?? now) + windowMs - now);
    return { capped: true, retryAfterMs, spent: entry.sends.length, cap, first };
  }

  /**
   * What a reconcile ended with; true (and the spending forgiven) when that is progress. A resource
   * that has not called yet gets no entry: most never do (suspended, settled), and ten thousand of
   * them would hold megabytes for nothing. Its first calls then count from its next state.
   */
  learn(resource: string, state: ResourceState): boolean {
    if (this.#share <= 0) return false;
    const entry = this.#entries.get(resource);
    if (entry === undefined) return true;
    const progress =
      entry.generation !== state.generation ||
      entry.deleting !== state.deleting ||
      entry.inputs !== state.inputs ||
      !entry.learned.includes(state.learned);
    entry.generation = state.generation;
    entry.deleting = state.deleting;
    entry.inputs = this.#strings.intern(state.inputs);
    if (!progress) return false;
    // A new array of the exact length: pushing to an empty one would reserve room for 17, per resource.
    entry.learned = [...entry.learned.slice(1 - rememberedStates), this.#strings.intern(state.learned)];
    entry.sends = [];
    entry.warned = false;
    return true;
  }

  forget(resource: string): void {
    this.#entries.delete(resource);
  }

  #entry(resource: string): Entry {
    let entry = this.#entries.get(resource);
    if (entry === undefined) {
      entry = {
        credentialId: "",
        sends: [],
        budget: unknownBudget,
        generation: undefined,
        deleting: false,
        inputs: "",
        learned: [],
        warned: false,
      };
      this.#entries.set(resource, entry);
    }
    return entry;
  }
}
