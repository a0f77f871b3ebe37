import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

const project = z.looseObject({ id: z.string(), name: z.string() });
const app = z.looseObject({
  id: z.string(),
  name: z.string(),
  config: z.looseObject({ image: z.string().optional() }).optional(),
});
const grid = z.looseObject({ id: z.string(), name: z.string() });
const order = z.looseObject({
  id: z.string(),
  state: z.string(),
  csp: z.string(),
  region: z.string(),
  zone: z.string(),
  instanceType: z.string(),
  count: z.number(),
});
const server = z.looseObject({ address: z.string(), orderId: z.string(), state: z.string() });

export type ServiceProject = z.infer<typeof project>;
export type ServiceApp = z.infer<typeof app> & { projectId: string };
export type ServiceGrid = z.infer<typeof grid>;
export type ServiceOrder = z.infer<typeof order>;
export type ServiceServer = z.infer<typeof server>;

/** Everything the user owns at the service, read in one pass. */
export interface ServiceSnapshot {
  projects: ServiceProject[];
  apps: ServiceApp[];
  grids: ServiceGrid[];
  orders: ServiceOrder[];
  servers: ServiceServer[];
}

/** Answers that are worth asking again: the injected faults, rate limits, a dropped connection. */
class Retryable extends Error {
  readonly waitMs: number;
  constructor(message: string, waitMs: number) {
    super(message);
    this.waitMs = waitMs;
  }
}

/**
 * Reads the service as its users, with keys of their own, through every fault the chaos injects:
 * 5xx and dropped connections are asked again, 429s after their Retry-After, and lists are
 * followed to a null `nextCursor` (pages may be short or empty).
 */
export class ServiceReader {
  readonly #baseUrl: string;
  readonly #tokens: string[];
  /** Requests that had to be repeated, by what went wrong. */
  readonly retries = new Map<string, number>();

  constructor(baseUrl: string, tokens: string[]) {
    this.#baseUrl = baseUrl;
    this.#tokens = tokens;
  }

  /** Everything every user owns; an app read twice while it moved between projects counts once. */
  async snapshot(): Promise<ServiceSnapshot> {
    const all: ServiceSnapshot = { projects: [], apps: [], grids: [], orders: [], servers: [] };
    for (const token of this.#tokens) {
      const one = await this.#snapshotOf(token);
      all.projects.push(...one.projects);
      all.apps.push(...one.apps.filter((a) => !all.apps.some((known) => known.id === a.id)));
      all.grids.push(...one.grids);
      all.orders.push(...one.orders);
      all.servers.push(...one.servers);
    }
    return all;
  }

  async #snapshotOf(token: string): Promise<ServiceSnapshot> {
    const projects = await this.#items(token, "/projects", project);
    const apps: ServiceApp[] = [];
    for (const p of projects) {
      const found = await this.#items(token, `/projects/${p.id}/apps`, app, { missingIsEmpty: true });
      apps.push(
        ...found
          .filter((a) => !apps.some((known) => known.id === a.id))
          .map((a) => ({ ...a, projectId: p.id })),
      );
    }
    return {
      projects,
      apps,
      grids: await this.#items(token, "/grids", grid),
      orders: await this.#items(token, "/servers/orders", order),
      servers: await this.#items(token, "/servers", server),
    };
  }

  async #items<T>(
    token: string,
    path: string,
    schema: z.ZodType<T>,
    options: { missingIsEmpty?: boolean } = {},
  ): Promise<T[]> {
    const page = z.object({ items: z.array(schema), nextCursor: z.string().nullable() });
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const body = await this.#get(token, `${path}?${query}`, options.missingIsEmpty === true);
      if (body === undefined) return [];
      const parsed = page.parse(body);
      items.push(...parsed.items);
      cursor = parsed.nextCursor;
    } while (cursor !== null);
    return items;
  }

  /** A GET, asked again until it answers (undefined for a 404 when `missingIsEmpty`). */
  async #get(token: string, path: string, missingIsEmpty: boolean): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#getOnce(token, path, missingIsEmpty);
      } catch (error) {
        if (!(error instanceof Retryable) || attempt >= 40) throw error;
        this.retries.set(error.message, (this.retries.get(error.message) ?? 0) + 1);
        await sleep(error.waitMs);
      }
    }
  }

  async #getOnce(token: string, path: string, missingIsEmpty: boolean): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.#baseUrl}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw new Retryable("no answer", 250);
    }
    const text = await response.text().catch(() => undefined);
    if (text === undefined) throw new Retryable("no answer", 250);
    if (response.status === 429) {
      throw new Retryable("429", Number(response.headers.get("retry-after") ?? "1") * 1000 + 100);
    }
    if (response.status >= 500) throw new Retryable("5xx", 250);
    if (response.status === 404 && missingIsEmpty) return undefined;
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  }
}
