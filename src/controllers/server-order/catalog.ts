import type { ServerOrderSpec } from "../../api/server-order.ts";
import type { HostingClient, InstanceType, Region, Zone } from "../../hosting/index.ts";

/** The service's catalog: what can be ordered where. */
export interface Catalog {
  regions: Region[];
  zones: Zone[];
  instanceTypes: InstanceType[];
}

/** Every value of the spec the catalog does not offer, each naming the valid ones. Pure. */
export function catalogProblems(spec: ServerOrderSpec, catalog: Catalog): string[] {
  const problems: string[] = [];
  const valid = (values: readonly string[]) => (values.length === 0 ? "none" : values.join(", "));
  const region = catalog.regions.find((r) => r.id === spec.region);
  if (region === undefined) {
    problems.push(
      `spec.region "${spec.region}" is not in the catalog (valid: ${valid(catalog.regions.map((r) => r.id))})`,
    );
  } else {
    if (!region.csps.includes(spec.csp)) {
      problems.push(
        `spec.csp "${spec.csp}" is not offered in region ${region.id} (valid: ${valid(region.csps)})`,
      );
    }
    const zones = catalog.zones.filter((z) => z.regionId === region.id).map((z) => z.id);
    if (spec.zone === undefined) {
      problems.push(`spec.zone is required by the service (zones of region ${region.id}: ${valid(zones)})`);
    } else if (!zones.includes(spec.zone)) {
      problems.push(`spec.zone "${spec.zone}" is not a zone of region ${region.id} (valid: ${valid(zones)})`);
    }
  }
  const types = catalog.instanceTypes.filter((t) => t.csp === spec.csp).map((t) => t.id);
  if (!types.includes(spec.instanceType)) {
    problems.push(
      `spec.instanceType "${spec.instanceType}" is not offered by csp ${spec.csp} (valid: ${valid(types)})`,
    );
  }
  return problems;
}

export interface CatalogCacheOptions {
  /** How long a read catalog is trusted (default 10 min). */
  ttlMs?: number;
  now?: () => number;
}

/**
 * The catalog per credential, read once per TTL: validating every ServerOrder must not cost three
 * requests each time. Concurrent callers share one read; a failed read is not kept.
 */
export class CatalogCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { catalog: Promise<Catalog>; readAt: number }>();

  constructor(options: CatalogCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  get(client: HostingClient): Promise<Catalog> {
    const now = this.#now();
    const cached = this.#entries.get(client.credentialId);
    if (cached !== undefined && now - cached.readAt < this.#ttlMs) return cached.catalog;
    const entry = { catalog: readCatalog(client), readAt: now };
    this.#entries.set(client.credentialId, entry);
    entry.catalog.catch(() => {
      if (this.#entries.get(client.credentialId) === entry) this.#entries.delete(client.credentialId);
    });
    return entry.catalog;
  }
}

/** Catalog lists come whole (the service does not page them). */
async function readCatalog(client: HostingClient): Promise<Catalog> {
  const [regions, zones, instanceTypes] = await Promise.all([
    client.listRegions(),
    client.listZones(),
    client.listInstanceTypes(),
  ]);
  return { regions: regions.items, zones: zones.items, instanceTypes: instanceTypes.items };
}
