import { Gauge, type Registry } from "prom-client";

/** What one resource is charged per hour, as the service states it in its status. */
export interface ResourceCost {
  kind: string;
  namespace: string;
  name: string;
  currency: string;
  hourly: number;
}

/** Per credential (labelled by key hash, never the key): the balance read, the spend and the runway. */
export interface CredentialFigures {
  credential: string;
  /** Absent when the key lacks billing:read or the balance was not read yet. */
  balance?: { amount: number; currency: string } | undefined;
  spend?: { amount: number; currency: string } | undefined;
  runwayHours?: number | undefined;
}

/** Where the figures come from at scrape time: the current resources and credentials, nothing kept. */
export interface CostSource {
  resources(): Iterable<ResourceCost>;
  credentials(): Iterable<CredentialFigures>;
  /** Per kind: how many resources the service holds back for want of balance (deferred, InsufficientBalance). */
  shortOfBalance(): Iterable<{ kind: string; count: number }>;
}

export interface CostMetrics {
  track(source: CostSource): void;
}

/**
 * berth_resource_hourly_cost, berth_credential_balance, berth_credential_hourly_spend and
 * berth_credential_runway_hours. Every series is computed from the source at each scrape, so there is
 * one per resource or credential there is now, and a series goes when its resource goes.
 */
export function createCostMetrics(registry: Registry): CostMetrics {
  const sources: CostSource[] = [];
  const resourceCost: Gauge<"kind" | "namespace" | "name" | "currency"> = new Gauge({
    name: "berth_resource_hourly_cost",
    help: "What the service charges per hour for a berth resource now, as it states it (status.cost.hourly)",
    labelNames: ["kind", "namespace", "name", "currency"],
    registers: [registry],
    collect() {
      resourceCost.reset();
      for (const source of sources) {
        for (const { kind, namespace, name, currency, hourly } of source.resources()) {
          resourceCost.set({ kind, namespace, name, currency }, hourly);
        }
      }
    },
  });
  const credentials = function* () {
    for (const source of sources) yield* source.credentials();
  };
  const balance: Gauge<"credential" | "currency"> = new Gauge({
    name: "berth_credential_balance",
    help: "The account balance the service reports for a credential with billing:read (credential = key hash)",
    labelNames: ["credential", "currency"],
    registers: [registry],
    collect() {
      balance.reset();
      for (const { credential, balance: read } of credentials()) {
        if (read !== undefined) balance.set({ credential, currency: read.currency }, read.amount);
      }
    },
  });
  const spend: Gauge<"credential" | "currency"> = new Gauge({
    name: "berth_credential_hourly_spend",
    help: "The sum of what the service charges per hour for the berth resources that use a credential",
    labelNames: ["credential", "currency"],
    registers: [registry],
    collect() {
      spend.reset();
      for (const { credential, spend: sum } of credentials()) {
        if (sum !== undefined) spend.set({ credential, currency: sum.currency }, sum.amount);
      }
    },
  });
  const runway: Gauge<"credential"> = new Gauge({
    name: "berth_credential_runway_hours",
    help: "Hours the credential's balance lasts at its hourly spend (balance / spend)",
    labelNames: ["credential"],
    registers: [registry],
    collect() {
      runway.reset();
      for (const { credential, runwayHours } of credentials()) {
        if (runwayHours !== undefined) runway.set({ credential }, runwayHours);
      }
    },
  });
  const short: Gauge<"kind"> = new Gauge({
    name: "berth_resources_insufficient_balance",
    help: "berth resources Stalled with InsufficientBalance (an App the service deferred, an order refused), by kind",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      short.reset();
      for (const source of sources) {
        for (const { kind, count } of source.shortOfBalance()) short.set({ kind }, count);
      }
    },
  });
  return { track: (source) => sources.push(source) };
}
