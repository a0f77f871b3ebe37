import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  createHostingClient,
  type HostingClient,
  type HostingClientOptions,
  paginate,
} from "../../src/hosting/index.ts";
import { type RunningSimulator, type SimulatorOptions, startSimulator } from "../../src/simulator/index.ts";

export interface Account {
  userId: string;
  keyId: string;
  token: string;
  client: HostingClient;
}

export interface AccountOptions {
  scopes?: string[];
  projectIds?: string[];
  balance?: number;
  /** Another key of an existing user instead of a new user. */
  userId?: string;
  client?: Partial<HostingClientOptions>;
}

/** One simulator (with its control API) per test file; every account gets a fresh user and key. */
export function useSimulator(options: SimulatorOptions = {}) {
  let simulator: RunningSimulator | undefined;
  const clients: HostingClient[] = [];
  const running = (): RunningSimulator => {
    if (simulator === undefined) throw new Error("the simulator is not running (used outside a test?)");
    return simulator;
  };

  beforeAll(async () => {
    // The spec-strict simulator: a test sending what the spec doesn't show (a repository source,
    // env) passes `{ profile: { base: "harsh", sampleValues: true } }`.
    simulator = await startSimulator({ controlApi: true, profile: "harsh", ...options });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    running().sim.clearFaults();
  });
  afterAll(async () => {
    await simulator?.close();
  });

  return {
    get sim() {
      return running().sim;
    },
    get baseUrl() {
      return running().baseUrl;
    },
    /** A client for `token`, closed after the test. */
    client(token: string, extra: Partial<HostingClientOptions> = {}): HostingClient {
      const client = createHostingClient({ baseUrl: running().baseUrl, apiKey: token, ...extra });
      clients.push(client);
      return client;
    },
    account(account: AccountOptions = {}): Account {
      const { sim } = running();
      const userId =
        account.userId ??
        sim.addUser({
          email: `u-${randomBytes(4).toString("hex")}@example.test`,
          balance: account.balance ?? 100,
        }).id;
      const key = sim.addKey({ userId, scopes: account.scopes, projectIds: account.projectIds });
      return { userId, keyId: key.id, token: key.token, client: this.client(key.token, account.client) };
    },
  };
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`;
}

export const imageApp = {
  config: { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] },
};

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Every item of a paginated list: pages may be short or empty, and only a null cursor ends it. */
export async function collect<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  for await (const item of paginate(page)) items.push(item);
  return items;
}
