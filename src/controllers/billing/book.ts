import type { Money } from "../../api/cost.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { CostSource, CredentialFigures, ResourceCost } from "../../telemetry/cost-metrics.ts";
import { Reason } from "../service/reasons.ts";
import { hourlyCostOf, runwayHours, spendOf } from "./runway.ts";

function stalledForBalance(object: KubeObject): boolean {
  const conditions = (object.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return false;
  return conditions.some(
    (c: { type?: unknown; status?: unknown; reason?: unknown }) =>
      c.type === "Stalled" && c.status === "True" && c.reason === Reason.InsufficientBalance,
  );
}

/** A kind whose resources state a cost, and its informer's objects. */
export interface CostedKind {
  kind: string;
  list: () => readonly KubeObject[];
}

/** What is known of one credentials Secret whose key has billing:read. */
export interface BalanceEntry {
  /** The key's hash (`key-…`): the only name metrics and events use for it. */
  credential: string;
  balance: Money | undefined;
  /** When the balance is next asked for (ms), successfully or not. */
  dueAt: number;
  /** The runway was under the threshold at the last look (a Warning was recorded on crossing). */
  low: boolean;
}

/**
 * The balances of the credentials in use, by Secret key (`namespace/name`), and the figures the cost
 * metrics show, computed from the resources as the informers hold them at each scrape.
 */
export class BalanceBook implements CostSource {
  readonly #entries = new Map<string, BalanceEntry>();
  readonly #kinds: readonly CostedKind[];
  readonly #secretOf: (object: KubeObject) => string | undefined;

  constructor(kinds: readonly CostedKind[], secretOf: (object: KubeObject) => string | undefined) {
    this.#kinds = kinds;
    this.#secretOf = secretOf;
  }

  #costed(): KubeObject[] {
    return this.#kinds.flatMap(({ list }) => list());
  }

  get(secret: string): BalanceEntry | undefined {
    return this.#entries.get(secret);
  }

  set(secret: string, entry: BalanceEntry): void {
    this.#entries.set(secret, entry);
  }

  delete(secret: string): void {
    this.#entries.delete(secret);
  }

  /** The resources whose credentials come from this Secret now. */
  users(secret: string): KubeObject[] {
    return this.#costed().filter((object) => this.#secretOf(object) === secret);
  }

  *resources(): Iterable<ResourceCost> {
    for (const { kind, list } of this.#kinds) {
      for (const object of list()) {
        const hourly = hourlyCostOf(object);
        if (hourly === undefined) continue;
        const { namespace = "", name } = object.metadata;
        yield { kind, namespace, name, currency: hourly.currency, hourly: Number(hourly.amount) };
      }
    }
  }

  *shortOfBalance(): Iterable<{ kind: string; count: number }> {
    for (const { kind, list } of this.#kinds) {
      yield { kind, count: list().filter(stalledForBalance).length };
    }
  }

  /** The figures per credential: Secrets holding the same key count as one, their resources together. */
  *credentials(): Iterable<CredentialFigures> {
    const byCredential = new Map<string, { balance: Money | undefined; users: KubeObject[] }>();
    for (const [secret, entry] of this.#entries) {
      const known = byCredential.get(entry.credential) ?? { balance: undefined, users: [] };
      known.balance ??= entry.balance;
      known.users.push(...this.users(secret));
      byCredential.set(entry.credential, known);
    }
    for (const [credential, { balance, users }] of byCredential) {
      const spend = spendOf(users);
      yield {
        credential,
        balance: balance && { amount: Number(balance.amount), currency: balance.currency },
        spend: spend && { amount: Number(spend.amount), currency: spend.currency },
        runwayHours: runwayHours(balance, spend),
      };
    }
  }
}
