import { type ChildProcess, spawn } from "node:child_process";
import { z } from "zod";
import { stopProcess, waitForOutput } from "./processes.ts";

/** A fault as `POST /_sim/faults` takes it (docs/simulator.md). */
export interface FaultRule {
  operation: string;
  latencyMs?: number;
  status?: number;
  retryAfterSec?: number;
  dropResponse?: boolean;
  forgetIdempotency?: boolean;
  times?: number;
  probability?: number;
}

const created = z.object({ id: z.string() });
const keySchema = z.object({ id: z.string(), token: z.string(), userId: z.string() });
const userSchema = z.object({ id: z.string() });
const statsSchema = z.object({
  requests: z.object({
    total: z.number(),
    byOperation: z.record(z.string(), z.record(z.string(), z.number())),
  }),
});
const clockSchema = z.object({ now: z.string() });
const requestRecord = z.object({
  at: z.string(),
  path: z.string(),
  requestId: z.string(),
  operation: z.string().nullable(),
  status: z.number(),
  keyId: z.string().nullable(),
  replayed: z.boolean(),
  dropped: z.boolean(),
});
export type RequestRecord = z.infer<typeof requestRecord>;
export type SimStats = z.infer<typeof statsSchema>;
export type ApiKey = z.infer<typeof keySchema>;

/** The simulator as its own process (`berth simulator --control-api`), and its /_sim control API. */
export class SimulatorProcess {
  readonly baseUrl: string;
  readonly #control: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, baseUrl: string) {
    this.#child = child;
    this.baseUrl = baseUrl;
    this.#control = baseUrl.replace(/\/v1$/, "/_sim");
  }

  static async start(clockSpeed: number): Promise<SimulatorProcess> {
    const child = spawn(
      process.execPath,
      // Spec-strict, as users get it: the load sends only values the spec shows.
      ["src/main.ts", "simulator", "--port", "0", "--control-api", "--clock-speed", String(clockSpeed)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const output = await waitForOutput(child, /listening at (\S+)/, 30_000);
    const baseUrl = /listening at (\S+)/.exec(output)?.[1];
    if (baseUrl === undefined) throw new Error("the simulator printed no base URL");
    return new SimulatorProcess(child, baseUrl);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  async addUser(email: string, balance: number): Promise<string> {
    return userSchema.parse(await this.#send("POST", "/users", { email, balance })).id;
  }

  async addKey(userId: string): Promise<ApiKey> {
    return keySchema.parse(await this.#send("POST", "/keys", { userId }));
  }

  async revokeKey(keyId: string): Promise<void> {
    await this.#send("DELETE", `/keys/${keyId}`);
  }

  /** Sets the simulator's profile (`PUT /_sim/profile`): a preset with some switches changed. */
  async setProfile(profile: Record<string, unknown>): Promise<void> {
    await this.#send("PUT", "/profile", profile);
  }

  async addFault(rule: FaultRule): Promise<string> {
    return created.parse(await this.#send("POST", "/faults", rule)).id;
  }

  async removeFault(id: string): Promise<void> {
    await this.#send("DELETE", `/faults/${id}`);
  }

  /** How many requests each fault rule hit (delayed, answered or dropped), active or spent, by id. */
  async faultHits(): Promise<Map<string, number>> {
    const rule = z.looseObject({ id: z.string(), hits: z.number() });
    const body = z
      .object({ items: z.array(rule), spent: z.array(rule) })
      .parse(await this.#send("GET", "/faults"));
    return new Map([...body.items, ...body.spent].map((r) => [r.id, r.hits]));
  }

  async clearFaults(): Promise<void> {
    await this.#send("DELETE", "/faults");
  }

  /** The machine breaks at the service (`failed`) until it is replaced or deprovisioned. */
  async failServer(address: string): Promise<void> {
    await this.#send("POST", `/servers/${address}/fail`);
  }

  /** The simulated clock now, in ms. */
  async now(): Promise<number> {
    return Date.parse(clockSchema.parse(await this.#send("GET", "/clock")).now);
  }

  async stats(): Promise<SimStats> {
    return statsSchema.parse(await this.#send("GET", "/stats"));
  }

  /** The last 10 000 requests, of one operation or all. */
  async requests(operation?: string): Promise<RequestRecord[]> {
    const query = operation === undefined ? "" : `?operation=${encodeURIComponent(operation)}`;
    const body = await this.#send("GET", `/requests${query}`);
    return z.object({ items: z.array(requestRecord) }).parse(body).items;
  }

  stop(): Promise<void> {
    return stopProcess(this.#child, 10_000);
  }

  async #send(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.#control}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /_sim${path} answered ${response.status}: ${text}`);
    return text === "" ? undefined : JSON.parse(text);
  }
}
