import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import {
  type RunningSimulator,
  type SimControl,
  type SimulatorOptions,
  startSimulator,
} from "../../src/simulator/index.ts";

/** Shapes from docs/simulator.md, for reading responses in tests. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    requestId: string;
    details?: { path: string; message: string }[];
    requiredScopes?: string[];
    retryAfterSec?: number;
    [extra: string]: unknown;
  };
}
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
export interface Project {
  id: string;
  name: string;
  createdAt: string;
}
export interface EnvVar {
  name: string;
  value: string | null;
  secret: boolean;
}
export interface App {
  id: string;
  projectId: string;
  name: string;
  config: {
    image?: string;
    ports: { port: number; protocol: string }[];
    instances: { min: number; max: number };
    env: EnvVar[];
    volumes: { name: string; mountPath: string; sizeGb: number }[];
    hardware: Record<string, number>;
    placement: Record<string, string>;
    gridPriorities: Record<string, number>;
    command?: string[];
  };
  source?: { provider: string; repository: string; branch: string };
  buildId?: string;
  start?: { state: string };
}
export interface AppStatus {
  state: string;
  targetState: string;
  nodes: { id: string; state: string }[];
  errors: { code: string; message: string; at: string }[];
  endpoints: { port: number; protocol: string; address: string | null }[];
}
export interface Build {
  id: string;
  appId: string;
  state: string;
  failedStep: string | null;
  pollAfterSec: number | null;
}
export interface Grid {
  id: string;
  name: string;
}
export interface Server {
  address: string;
  orderId: string;
  gridIds: string[];
  state: string;
  zone: string;
}
export interface Order {
  id: string;
  state: string;
  servers: string[];
  pollAfterSec: number | null;
  error: { code: string; message: string } | null;
}
export interface Logs {
  text: string;
  lines: number;
  truncated: boolean;
}

export interface Response<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** A small HTTP client for the simulator: one API key, JSON in and out. */
export class Api {
  readonly baseUrl: string;
  readonly key: string | undefined;

  constructor(baseUrl: string, key: string | undefined) {
    this.baseUrl = baseUrl;
    this.key = key;
  }

  as(key: string | undefined): Api {
    return new Api(this.baseUrl, key);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = {};
    if (this.key !== undefined) headers.authorization = `Bearer ${this.key}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { ...headers, ...options.headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    const type = response.headers.get("content-type") ?? "";
    const parsed = type.includes("application/json") && text !== "" ? JSON.parse(text) : text;
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T>(path: string, options?: RequestOptions) {
    return this.request<T>("GET", path, options);
  }
  post<T>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("POST", path, { ...options, ...(body === undefined ? {} : { body }) });
  }
  patch<T>(path: string, body: unknown, options?: RequestOptions) {
    return this.request<T>("PATCH", path, { ...options, body });
  }
  delete<T>(path: string, options?: RequestOptions) {
    return this.request<T>("DELETE", path, options);
  }
}

export interface Harness {
  readonly simulator: RunningSimulator;
  readonly sim: SimControl;
  /** The demo key's client. */
  readonly api: Api;
}

export const START = "2030-01-15T00:00:00.000Z";

/**
 * One in-process simulator per describe block (port 0, control API on, frozen clock, seeded ids),
 * reset before every test so tests don't see each other's objects. The conformance suite checks
 * each documented rule in the lenient profile, where nothing random happens; harsh.test.ts checks
 * the harsh defaults and that each switch restores its lenient choice.
 */
export function useSimulator(options: SimulatorOptions = {}): Harness {
  let running: RunningSimulator | undefined;
  beforeAll(async () => {
    running = await startSimulator({
      controlApi: true,
      clock: { start: START, frozen: true },
      idSeed: "conformance",
      profile: "lenient",
      ...options,
    });
  });
  afterAll(async () => {
    await running?.close();
  });
  beforeEach(() => {
    running?.sim.reset();
  });
  const current = (): RunningSimulator => {
    if (running === undefined) throw new Error("the simulator is not started yet");
    return running;
  };
  return {
    get simulator() {
      return current();
    },
    get sim() {
      return current().sim;
    },
    get api() {
      return new Api(current().baseUrl, current().demoKey);
    },
  };
}

/** Asserts an error response and returns its error object. */
export function expectError(response: Response<unknown>, status: number, code: string): ErrorBody["error"] {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { error: { code } },
  });
  const { error } = response.body as ErrorBody;
  expect(error.requestId).toBe(response.headers.get("x-request-id"));
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

let keys = 0;
/** A fresh Idempotency-Key, as a correct client sends on every create. */
export function newKey(): { headers: Record<string, string> } {
  keys++;
  return { headers: { "idempotency-key": `test-${process.pid}-${Date.now()}-${keys}` } };
}

export async function createProject(api: Api, name = "project"): Promise<Project> {
  const response = await api.post<Project>("/projects", { name }, newKey());
  expect(response.status).toBe(201);
  return response.body;
}

export const imageConfig = {
  image: "nginx:1.27",
  ports: [{ port: 80, protocol: "http80_load_balancer" }],
};

export async function createApp(
  api: Api,
  projectId: string,
  body: Record<string, unknown> = {},
): Promise<App> {
  const response = await api.post<App>(
    `/projects/${projectId}/apps`,
    { name: "web", config: imageConfig, ...body },
    newKey(),
  );
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

export async function status(api: Api, app: App): Promise<AppStatus> {
  const response = await api.get<AppStatus>(`/projects/${app.projectId}/apps/${app.id}/status`);
  expect(response.status).toBe(200);
  return response.body;
}

/** A second user with one key of the given scopes; returns that key's client. */
export function addUserWithKey(
  harness: Harness,
  options: { id?: string; scopes?: string[]; projectIds?: string[]; balance?: number | string } = {},
): { api: Api; userId: string; keyId: string } {
  const user = harness.sim.addUser({
    email: `${options.id ?? "other"}@example.com`,
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.balance === undefined ? {} : { balance: options.balance }),
  });
  const key = harness.sim.addKey({
    userId: user.id,
    scopes: options.scopes ?? ["*"],
    projectIds: options.projectIds ?? [],
  });
  return { api: new Api(harness.simulator.baseUrl, key.token), userId: user.id, keyId: key.id };
}

/** A key for the demo user with other scopes or pinning. */
export function demoKey(
  harness: Harness,
  options: { scopes?: string[]; projectIds?: string[]; expiresAt?: string },
) {
  const key = harness.sim.addKey({ userId: "usr_demo", ...options });
  return { api: new Api(harness.simulator.baseUrl, key.token), keyId: key.id, token: key.token };
}
