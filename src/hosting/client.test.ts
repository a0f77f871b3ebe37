import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHostingClient, type HostingClient } from "./client.ts";
import { HostingError } from "./errors.ts";
import { BudgetWaitError } from "./limiter.ts";
import type { HostingObserver } from "./observer.ts";
import type { HttpRequest, HttpResponse, Transport } from "./transport.ts";

// The pipeline's decisions (retry, classify, parse, redact) against scripted answers. The real
// service's behaviour is tested against the simulator under test/hosting/.

const apiKey = "sk_live_TOPSECRET123";
const projectId = "a".repeat(24);
const appId = "b".repeat(24);
const status = { state: "running", targetState: "running", nodes: [], errors: [], endpoints: [] };
const project = { id: projectId, name: "p", createdAt: "2030-01-01T00:00:00Z" };

type Answer = HttpResponse | Error;

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status: statusCode, headers: { "x-request-id": "req_1", ...headers }, body: JSON.stringify(body) };
}

function failure(
  code: string,
  status: number,
  extra: Record<string, unknown> = {},
  headers = {},
): HttpResponse {
  return json(
    status,
    { error: { code, message: `${code} happened`, requestId: "req_err", ...extra } },
    headers,
  );
}

function networkError(code: string): Error {
  return Object.assign(new Error(code), { code });
}

function scripted(answers: Answer[]): Transport & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async send(request) {
      requests.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("no scripted answer left");
      if (answer instanceof Error) throw answer;
      return answer;
    },
    close: async () => undefined,
  };
}

function client(transport: Transport, observer: HostingObserver = {}): HostingClient {
  return createHostingClient({
    baseUrl: "http://hosting.test/v1",
    apiKey,
    transport,
    observer,
    random: () => 0.5,
    backoff: { maxAttempts: 3, baseMs: 100, capMs: 1_000 },
  });
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs a call to completion, advancing fake time through its backoff waits. */
async function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  await vi.runAllTimersAsync();
  return promise;
}

describe("requests", () => {
  it("sends bearer auth, JSON, the Idempotency-Key and URL-encoded path values", async () => {
    const transport = scripted([json(201, project), json(200, status)]);
    const c = client(transport);
    await c.createProject({ name: "p" }, { idempotencyKey: "k-1" });
    await c.getAppStatus("a/b c", appId);
    const [create, read] = transport.requests;
    expect(create?.headers).toMatchObject({
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "idempotency-key": "k-1",
    });
    expect(create?.body).toBe('{"name":"p"}');
    expect(read?.path).toBe(`/projects/a%2Fb%20c/apps/${appId}/status`);
  });

  it("puts list filters in the query and returns the response metadata beside the data", async () => {
    const transport = scripted([
      json(200, { items: [], nextCursor: null }, { "idempotent-replayed": "false" }),
    ]);
    const page = await client(transport).listServers({ gridId: ["g1", "g2"], limit: 10 });
    expect(transport.requests[0]?.path).toBe("/servers?gridId=g1&gridId=g2&limit=10");
    expect(page.$metadata).toEqual({ status: 200, requestId: "req_1", replayed: false, attempts: 1 });
    expect(Object.keys(page)).toEqual(["items", "nextCursor"]);
  });
});

describe("waiting for answers", () => {
  it("awaits each attempt's answer through the scope's whileWaiting (a reconcile frees its worker)", async () => {
    const transport = scripted([networkError("ECONNRESET"), json(200, status)]);
    const awaited: unknown[] = [];
    const scoped = client(transport).scoped({
      whileWaiting: async (answer) => {
        awaited.push(answer);
        return answer;
      },
    });
    await expect(settled(scoped.getAppStatus(projectId, appId))).resolves.toMatchObject({ state: "running" });
    expect(awaited).toHaveLength(2);
  });
});

describe("retries", () => {
  it("repeats a read after a 503 and a lost connection", async () => {
    const transport = scripted([
      failure("service_unavailable", 503),
      networkError("ECONNRESET"),
      json(200, status),
    ]);
    const result = await settled(client(transport).getAppStatus(projectId, appId));
    expect(result.state).toBe("running");
    expect(result.$metadata.attempts).toBe(3);
  });

  it("never repeats a restart that may have happened: the error is uncertain", async () => {
    const transport = scripted([networkError("headers_timeout"), json(202, status)]);
    const error = await settled(client(transport).restartApp(projectId, appId)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostingError);
    expect(error).toMatchObject({ code: "timeout", kind: "uncertain" });
    expect(transport.requests).toHaveLength(1);
  });

  it("never repeats a build trigger after a 500", async () => {
    const transport = scripted([failure("internal_error", 500), json(202, {})]);
    const error = await settled(client(transport).triggerBuild(projectId, appId)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "internal_error", kind: "uncertain", status: 500 });
    expect(transport.requests).toHaveLength(1);
  });

  it("repeats a restart the service refused before acting (connection refused)", async () => {
    const transport = scripted([networkError("ECONNREFUSED"), json(202, status)]);
    const result = await settled(client(transport).restartApp(projectId, appId));
    expect(result.attempts).toBe(2);
  });

  it.each([
    ["a dropped response", networkError("ECONNRESET"), "connection_lost"],
    ["a 502", failure("bad_gateway", 502), "bad_gateway"],
  ])(
    "never repeats a keyed create after %s: the caller looks the object up first (rule 7)",
    async (_, first, code) => {
      const transport = scripted([first, json(201, project)]);
      const error = await settled(
        client(transport).createProject({ name: "p" }, { idempotencyKey: "k" }),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ code, kind: "uncertain" });
      expect(transport.requests).toHaveLength(1);
    },
  );

  it("repeats a keyed create the service refused before acting (request_in_progress), and counts the replay", async () => {
    const onReplay = vi.fn();
    const transport = scripted([
      failure("request_in_progress", 409, { retryAfterSec: 1 }),
      json(201, project, { "idempotent-replayed": "true" }),
    ]);
    const created = await settled(
      client(transport, { onReplay }).createProject({ name: "p" }, { idempotencyKey: "k" }),
    );
    expect(created.$metadata.replayed).toBe(true);
    expect(transport.requests.map((r) => r.headers["idempotency-key"])).toEqual(["k", "k"]);
    expect(onReplay).toHaveBeenCalledWith(expect.objectContaining({ operation: "createProject" }));
  });

  it("never waits out a pause longer than maxServerWaitMs: the next call fails at once, unsent, as rate_limited", async () => {
    const transport = scripted([
      failure("rate_limited", 429, {}, { "retry-after": "30" }),
      json(200, status),
    ]);
    const throttled = createHostingClient({
      baseUrl: "http://hosting.test/v1",
      apiKey,
      transport,
      random: () => 0.5,
      backoff: { maxAttempts: 3, baseMs: 100, capMs: 1_000, maxServerWaitMs: 1_000 },
    });
    await expect(settled(throttled.getAppStatus(projectId, appId))).rejects.toMatchObject({
      code: "rate_limited",
    });
    await expect(settled(throttled.getAppStatus(projectId, appId))).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSec: 30,
    });
    expect(transport.requests).toHaveLength(1);
  });

  it("with maxBudgetWaitMs, gives up waiting for room in the budget: unsent, not a hosting error, with when to come back", async () => {
    const transport = scripted([json(200, status)]);
    const bounded = createHostingClient({
      baseUrl: "http://hosting.test/v1",
      apiKey,
      transport,
      limits: { perCredential: 1 },
      maxBudgetWaitMs: 1_000,
    });
    await bounded.getAppStatus(projectId, appId);
    const error = await settled(bounded.getAppStatus(projectId, appId)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetWaitError);
    expect(error).not.toBeInstanceOf(HostingError);
    expect((error as BudgetWaitError).deferMs).toBeGreaterThan(55_000);
    expect(transport.requests).toHaveLength(1);
  });

  it("lets a reconcile's background call wait longer once an earlier call of it was admitted", async () => {
    const answers = () => [json(200, status), json(200, status)];
    const bounded = (transport: Transport) =>
      createHostingClient({
        baseUrl: "http://hosting.test/v1",
        apiKey,
        transport,
        limits: { perCredential: 1, windowMs: 5_000 },
        maxBudgetWaitMs: 1_000,
      });
    const background = { priority: "background" } as const;
    const begun = bounded(scripted(answers())).scoped({});
    await begun.getAppStatus(projectId, appId, background);
    await expect(settled(begun.getAppStatus(projectId, appId, background))).resolves.toMatchObject({
      state: "running",
    });
    const fresh = bounded(scripted(answers()));
    await fresh.getAppStatus(projectId, appId, background);
    await expect(settled(fresh.getAppStatus(projectId, appId, background))).rejects.toBeInstanceOf(
      BudgetWaitError,
    );
  });

  it("waits as long as Retry-After on a 429 before trying again", async () => {
    const onRateLimited = vi.fn();
    const transport = scripted([failure("rate_limited", 429, {}, { "retry-after": "7" }), json(200, status)]);
    const call = client(transport, { onRateLimited }).getAppStatus(projectId, appId);
    await vi.advanceTimersByTimeAsync(6_999);
    expect(transport.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(call).resolves.toMatchObject({ state: "running" });
    expect(onRateLimited).toHaveBeenCalledWith(expect.objectContaining({ retryAfterSec: 7 }));
  });

  it("waits retryAfterSec of a request_in_progress, then gets the recorded answer", async () => {
    const transport = scripted([
      failure("request_in_progress", 409, { retryAfterSec: 3 }),
      json(201, project, { "idempotent-replayed": "true" }),
    ]);
    const call = client(transport).createProject({ name: "p" }, { idempotencyKey: "k" });
    await vi.advanceTimersByTimeAsync(2_999);
    expect(transport.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(call).resolves.toMatchObject({ id: projectId });
  });

  it("hands a wait longer than it will sleep back to the caller as retryable", async () => {
    const transport = scripted([
      failure("rate_limited", 429, { retryAfterSec: 3_600 }, { "retry-after": "3600" }),
    ]);
    const error = await settled(client(transport).getMe()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "rate_limited", kind: "retryable", retryAfterSec: 3_600 });
    expect(transport.requests).toHaveLength(1);
  });

  it("does not repeat terminal errors", async () => {
    const transport = scripted([
      failure("validation_failed", 400, { details: [{ path: "name", message: "too long" }] }),
    ]);
    const error = await settled(
      client(transport).createProject({ name: "p" }, { idempotencyKey: "k" }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "validation_failed", kind: "terminal", details: [{ path: "name" }] });
  });

  it("gives up after maxAttempts", async () => {
    const transport = scripted([
      failure("internal_error", 500),
      failure("internal_error", 500),
      failure("internal_error", 500),
    ]);
    const error = await settled(client(transport).getMe()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "retryable", code: "internal_error" });
    expect(transport.requests).toHaveLength(3);
  });
});

describe("errors", () => {
  it("names the field of a response that does not match the documented shape", async () => {
    const transport = scripted([
      json(200, { ...status, endpoints: [{ port: "80", protocol: "http", address: null }] }),
    ]);
    const error = await settled(client(transport).getAppStatus(projectId, appId)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "response_invalid", kind: "terminal", requestId: "req_1" });
    expect((error as Error).message).toContain("endpoints.0.port");
  });

  it("carries requiredScopes and the request ID of a 403 insufficient_scope", async () => {
    const transport = scripted([
      failure("insufficient_scope", 403, { requiredScopes: ["apps:write", "compute:spend"] }),
    ]);
    const error = await settled(client(transport).startApp(projectId, appId)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 403,
      requiredScopes: ["apps:write", "compute:spend"],
      requestId: "req_err",
    });
    expect((error as Error).message).toContain("missing scopes apps:write, compute:spend");
    expect((error as Error).message).toContain("request req_err");
  });

  it("never lets the API key through, even when the service echoes it", async () => {
    const transport = scripted([
      failure("unauthorized", 401, { details: { header: `Bearer ${apiKey}` } }),
      json(401, { error: { code: "unauthorized", message: `bad key ${apiKey}` } }),
    ]);
    const c = client(transport);
    const errors = [
      await settled(c.getMe()).catch((e: unknown) => e),
      await settled(c.getMe()).catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(HostingError);
      expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(
        apiKey,
      );
      expect(String((error as Error).stack)).not.toContain(apiKey);
    }
  });

  it("refuses an empty key or one with whitespace without echoing it", () => {
    const transport = scripted([]);
    expect(() => createHostingClient({ baseUrl: "http://h/v1", apiKey: "", transport })).toThrow(/empty/);
    expect(() => createHostingClient({ baseUrl: "http://h/v1", apiKey: "abc def", transport })).toThrow(
      /^((?!abc def).)*$/,
    );
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(() => createHostingClient({ baseUrl: "ftp://h/v1", apiKey })).toThrow(/http or https/);
    expect(() => createHostingClient({ baseUrl: "not a url", apiKey })).toThrow(/not a URL/);
  });
});

describe("observer", () => {
  it("reports each attempt with its status, and the remaining budget under a non-secret credential id", async () => {
    const onRequest = vi.fn();
    const onBudget = vi.fn();
    const headers = {
      "x-ratelimit-limit": "300",
      "x-ratelimit-remaining": "299",
      "x-ratelimit-reset": "1700000000",
    };
    const transport = scripted([failure("service_unavailable", 503), json(200, status, headers)]);
    const c = client(transport, { onRequest, onBudget });
    await settled(c.getAppStatus(projectId, appId));
    expect(onRequest.mock.calls.map(([e]) => [e.operation, e.code, e.attempt])).toEqual([
      ["getAppStatus", "503", 1],
      ["getAppStatus", "200", 2],
    ]);
    expect(onBudget).toHaveBeenCalledWith({
      credential: c.credentialId,
      limit: 300,
      remaining: 299,
      resetAtMs: 1_700_000_000_000,
    });
    expect(c.credentialId).toMatch(/^key-[0-9a-f]{12}$/);
    expect(c.credentialId).not.toContain(apiKey);
  });
});
