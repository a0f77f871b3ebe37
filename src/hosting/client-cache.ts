import { createHash } from "node:crypto";
import { createHostingClient, type HostingClient, type HostingClientOptions } from "./client.ts";
import { createSystemClock } from "./clock.ts";
import { LimiterRegistry } from "./limiter-registry.ts";
import { createHttpTransport, parseBaseUrl, type Transport } from "./transport.ts";

export type HostingClientCacheOptions = Omit<
  HostingClientOptions,
  "baseUrl" | "apiKey" | "limiters" | "transport"
>;

export interface HostingClientCache {
  /** The client for this credential, made on first use; one connection pool per base URL. */
  get(baseUrl: string, apiKey: string): HostingClient;
  /** See LimiterRegistry.backgroundLag. */
  backgroundLag(): Array<{ credentialId: string; lagMs: number }>;
  close(): Promise<void>;
}

/**
 * What the operator holds: one client per credential, sharing one pool per base URL and one limiter
 * registry, so every client of a credential or of a user draws from the same budget.
 */
export function createHostingClientCache(options: HostingClientCacheOptions = {}): HostingClientCache {
  const clock = options.clock ?? createSystemClock();
  const limiters = new LimiterRegistry(clock, options.limits, options.limiterTuning);
  const transports = new Map<string, Transport>();
  const clients = new Map<string, HostingClient>();
  return {
    get(baseUrl, apiKey) {
      const base = parseBaseUrl(baseUrl).href.replace(/\/+$/, "");
      const cacheKey = `${base} ${createHash("sha256").update(apiKey).digest("hex")}`;
      let client = clients.get(cacheKey);
      if (client === undefined) {
        let transport = transports.get(base);
        if (transport === undefined) {
          transport = createHttpTransport(base, options.transportOptions);
          transports.set(base, transport);
        }
        client = createHostingClient({ ...options, clock, baseUrl: base, apiKey, limiters, transport });
        clients.set(cacheKey, client);
      }
      return client;
    },
    backgroundLag: () => limiters.backgroundLag(),
    async close() {
      limiters.close(new Error("hosting clients closed"));
      clients.clear();
      await Promise.all([...transports.values()].map((t) => t.close()));
      transports.clear();
    },
  };
}
