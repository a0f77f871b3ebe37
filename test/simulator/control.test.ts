import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import {
  Api,
  type App,
  type Build,
  createApp,
  createProject,
  expectError,
  type Page,
  type Project,
  status,
  useSimulator,
} from "./support.ts";

// design.md §5, the simulator contract: control API, faults, timings, forced failures, reset,
// deterministic mode, clock speed, seed file.

describe("Control API over HTTP (/_sim)", () => {
  const h = useSimulator();
  const control = () => new Api(h.simulator.controlUrl, undefined);

  it("adds users and keys, sets balances, freezes accounts and revokes keys", async () => {
    const user = await control().post<{ id: string; balance: string }>("/users", {
      email: "ci@example.com",
      balance: "5.5",
    });
    expect(user.status).toBe(201);
    expect(user.body.balance).toBe("5.5000");
    const key = await control().post<{ id: string; token: string }>("/keys", {
      userId: user.body.id,
      scopes: ["billing:read", "projects:write"],
    });
    expect(key.status).toBe(201);
    const api = h.api.as(key.body.token);
    expect((await api.get<{ balance: string }>("/billing/balance")).body.balance).toBe("5.5000");
    await control().request("PUT", `/users/${user.body.id}/balance`, { body: { balance: 9 } });
    expect((await api.get<{ balance: string }>("/billing/balance")).body.balance).toBe("9.0000");
    await control().request("PUT", `/users/${user.body.id}/frozen`, { body: { frozen: true } });
    expectError(await api.post("/projects", { name: "p" }), 403, "account_frozen");
    expect((await control().delete(`/keys/${key.body.id}`)).status).toBe(204);
    expectError(await api.get("/me"), 401, "unauthorized");
  });

  it("shares a resource with a role", async () => {
    const project = await createProject(h.api);
    await control().post("/users", { id: "friend", email: "friend@example.com" });
    const key = await control().post<{ token: string }>("/keys", { userId: "friend" });
    const friend = h.api.as(key.body.token);
    expectError(await friend.get(`/projects/${project.id}`), 404, "not_found");
    const shared = await control().post("/shares", {
      resourceType: "project",
      resourceId: project.id,
      userId: "friend",
      role: "viewer",
    });
    expect(shared.status).toBe(204);
    expect((await friend.get(`/projects/${project.id}`)).status).toBe(200);
  });

  it("injects status codes per operation for a number of requests", async () => {
    const fault = await control().post<{ id: string }>("/faults", {
      operation: "getMe",
      status: 503,
      times: 2,
    });
    expect(fault.status).toBe(201);
    expectError(await h.api.get("/me"), 503, "service_unavailable");
    expect((await h.api.get("/projects")).status).toBe(200);
    expectError(await h.api.get("/me"), 503, "service_unavailable");
    expect((await h.api.get("/me")).status).toBe(200);
  });

  it("injects 429 storms with Retry-After on every operation", async () => {
    await control().post("/faults", { operation: "*", status: 429, retryAfterSec: 7, times: 3 });
    for (const path of ["/me", "/projects", "/grids"]) {
      const response = await h.api.get(path);
      expect(expectError(response, 429, "rate_limited").retryAfterSec).toBe(7);
      expect(response.headers.get("retry-after")).toBe("7");
    }
    expect((await h.api.get("/me")).status).toBe(200);
  });

  it("a 429 with latency waits, then refuses", async () => {
    await control().post("/faults", {
      operation: "getMe",
      status: 429,
      retryAfterSec: 2,
      latencyMs: 150,
      times: 1,
    });
    const started = Date.now();
    expectError(await h.api.get("/me"), 429, "rate_limited");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("injects latency, listed until cleared", async () => {
    await control().post("/faults", { operation: "listProjects", latencyMs: 150 });
    expect((await control().get<{ items: unknown[] }>("/faults")).body.items).toEqual([
      { id: expect.any(String), operation: "listProjects", latencyMs: 150, hits: 0 },
    ]);
    const started = Date.now();
    await h.api.get("/projects");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await control().get<{ items: { hits: number }[] }>("/faults")).body.items[0]?.hits).toBe(1);
    expect((await control().delete("/faults")).status).toBe(204);
    expect((await control().get<{ items: unknown[] }>("/faults")).body.items).toEqual([]);
  });

  it("act-then-drop: the operation happens, the connection closes without a response", async () => {
    await control().post("/faults", { operation: "createProject", dropResponse: true, times: 1 });
    await expect(h.api.post("/projects", { name: "ghost" })).rejects.toThrow();
    const projects = (await h.api.get<Page<Project>>("/projects")).body.items;
    expect(projects.map((p) => p.name)).toEqual(["ghost"]);
    const log = (
      await control().get<{ items: { dropped: boolean; status: number }[] }>(
        "/requests?operation=createProject",
      )
    ).body.items;
    expect(log).toEqual([expect.objectContaining({ dropped: true, status: 201 })]);
  });

  it("sets how long starts, builds and orders take", async () => {
    const timings = await control().request<Record<string, number>>("PUT", "/timings", {
      body: { start: 10, build: 1 },
    });
    expect(timings.body).toEqual({
      build: 1,
      start: 10,
      wire: 1,
      stop: 2,
      order: 20,
      power: 3,
      createMin: 1,
      createMax: 3,
    });
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(9);
    expect((await status(h.api, app)).state).toBe("provisioning");
    h.sim.advanceClock(1);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("makes the next build fail at a chosen step", async () => {
    expect((await control().post("/failures", { kind: "build", step: "push" })).status).toBe(204);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: {},
      source: { provider: "github", repository: "a/b", branch: "main" },
    });
    h.sim.advanceClock(8);
    expect((await h.api.get<Build>(`/builds/${app.buildId}`)).body).toMatchObject({
      state: "failed",
      failedStep: "push",
    });
  });

  it("reads, advances and sets the clock (forward only)", async () => {
    expect((await control().get("/clock")).body).toEqual({
      now: "2030-01-15T00:00:00.000Z",
      speed: 1,
      frozen: true,
    });
    expect((await control().post("/clock", { advanceSec: 90 })).body).toMatchObject({
      now: "2030-01-15T00:01:30.000Z",
    });
    expect((await control().post("/clock", { set: "2030-02-01T00:00:00Z" })).body).toMatchObject({
      now: "2030-02-01T00:00:00.000Z",
    });
    expectError(await control().post("/clock", { set: "2029-01-01T00:00:00Z" }), 400, "validation_failed");
  });

  it("resets to the start state; the demo key keeps working", async () => {
    await createProject(h.api);
    expect((await control().post("/reset")).status).toBe(204);
    expect((await h.api.get<Page<Project>>("/projects")).body.items).toEqual([]);
    expect((await control().get<{ now: string }>("/clock")).body.now).toBe("2030-01-15T00:00:00.000Z");
  });

  it("lists requests by operation, for tests that count calls", async () => {
    await createProject(h.api, "a");
    await createProject(h.api, "b");
    await h.api.get("/projects");
    const log = (
      await control().get<{ items: { operation: string; status: number }[] }>(
        "/requests?operation=createProject",
      )
    ).body.items;
    expect(log.map((r) => [r.operation, r.status])).toEqual([
      ["createProject", 201],
      ["createProject", 201],
    ]);
  });

  it("shows each fault's hits, and keeps a spent fault listed under spent", async () => {
    await control().post("/faults", { operation: "getMe", status: 503, times: 2 });
    await control().post("/faults", { operation: "listGrids", status: 500 });
    await h.api.get("/me");
    await h.api.get("/me");
    await h.api.get("/me");
    const faults = await control().get<{ items: unknown[]; spent: unknown[] }>("/faults");
    expect(faults.body).toEqual({
      items: [expect.objectContaining({ operation: "listGrids", hits: 0 })],
      spent: [expect.objectContaining({ operation: "getMe", hits: 2, times: 0 })],
    });
  });

  it("refuses a fault that could never fire, saying what to fix", async () => {
    const key = h.sim.addKey({ userId: "usr_demo" });
    const cases: [unknown, string, RegExp][] = [
      [{ operation: "nonexistentOp", status: 500 }, "operation", /no operation is named "nonexistentOp"/],
      [{ operation: "*", status: 429, keyId: "key_nope" }, "keyId", /no key has the id "key_nope"/],
      [{ operation: "getMe" }, "fault", /does nothing/],
      [
        { operation: "getMe", dropResponse: true, forgetIdempotency: true },
        "forgetIdempotency",
        /no Idempotency-Key/,
      ],
      [{ operation: "getMe", latencyMs: 50, retryAfterSec: 3 }, "retryAfterSec", /add status/],
    ];
    for (const [fault, path, message] of cases) {
      const error = expectError(await control().post("/faults", fault), 400, "validation_failed");
      expect(error.details?.[0]?.path).toBe(path);
      expect(error.message).toMatch(message);
    }
    expect((await control().post("/faults", { operation: "*", status: 429, keyId: key.id })).status).toBe(
      201,
    );
    expect((await control().post("/faults", { operation: "readDocs", status: 500 })).status).toBe(201);
    expect(() => h.sim.injectFault({ operation: "creatApp", status: 500 })).toThrow(/creatApp/);
  });

  it("refuses bad control requests with a clear 400 or 404", async () => {
    const bad = await control().post("/faults", { operation: "getMe", status: 200 });
    expect(expectError(bad, 400, "validation_failed").details?.[0]?.path).toBe("status");
    expectError(await control().post("/keys", { userId: "nobody" }), 404, "not_found");
    expectError(await control().get("/nothing"), 404, "not_found");
  });
});

describe("Control API availability", () => {
  it("is refused (404) unless the simulator was started with it", async () => {
    const simulator = await startSimulator();
    try {
      const response = await fetch(`${simulator.controlUrl}/clock`);
      expect(response.status).toBe(404);
    } finally {
      await simulator.close();
    }
  });
});

describe("Deterministic mode", () => {
  it("the same id seed and requests give the same ids, keys and request ids", async () => {
    const run = async () => {
      const simulator = await startSimulator({
        idSeed: "fixed",
        clock: { start: "2030-01-01T00:00:00Z", frozen: true },
        timings: { createMin: 0, createMax: 0 },
      });
      try {
        const api = new Api(simulator.baseUrl, simulator.demoKey);
        const project = await createProject(api);
        const app = await createApp(api, project.id);
        const me = await api.get("/me");
        return [simulator.demoKey, project.id, project.createdAt, app.id, me.headers.get("x-request-id")];
      } finally {
        await simulator.close();
      }
    };
    const first = await run();
    expect(await run()).toEqual(first);
  });
});

describe("Clock speed", () => {
  it("lifecycle timings run N times faster than real time", async () => {
    const simulator = await startSimulator({ clockSpeed: 100 });
    try {
      const api = new Api(simulator.baseUrl, simulator.demoKey);
      const project = await createProject(api);
      const app: App = await createApp(api, project.id);
      await sleep(80); // 8 simulated seconds: start (3 s) and wiring (1 s) are done
      const current = await status(api, app);
      expect(current.state).toBe("running");
      expect(current.endpoints[0]?.address).not.toBeNull();
    } finally {
      await simulator.close();
    }
  });

  it("rate-limit windows follow the clock; Retry-After and X-RateLimit-Reset are in wall-clock time", async () => {
    const simulator = await startSimulator({ clockSpeed: 120, rateLimits: { perCredential: 3 } });
    try {
      const api = new Api(simulator.baseUrl, simulator.demoKey);
      const before = Date.now() / 1000;
      let limited = await api.get("/me");
      while (limited.status === 200) limited = await api.get("/me");
      const after = Date.now() / 1000;
      expect(limited.status).toBe(429);
      // A 60 s window lasts half a real second at 120×: it resets within a second of the calls.
      expect(limited.headers.get("retry-after")).toBe("1");
      const reset = Number(limited.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(Math.floor(before));
      expect(reset).toBeLessThanOrEqual(Math.ceil(after) + 1);
      await sleep(600);
      expect((await api.get("/me")).status).toBe(200);
    } finally {
      await simulator.close();
    }
  });

  it("idempotency retention (24 h) follows the clock", async () => {
    const simulator = await startSimulator({ clockSpeed: 100_000 });
    try {
      const api = new Api(simulator.baseUrl, simulator.demoKey);
      const headers = { "idempotency-key": "fast" };
      const first = await api.post<Project>("/projects", { name: "p" }, { headers });
      await sleep(900); // 25 simulated hours
      const later = await api.post<Project>("/projects", { name: "p" }, { headers });
      expect(later.headers.get("idempotent-replayed")).toBeNull();
      expect(later.body.id).not.toBe(first.body.id);
    } finally {
      await simulator.close();
    }
  });
});

describe("Seed and options", () => {
  it("a seed replaces the demo user: its users and keys, with their scopes and pinning", async () => {
    const simulator = await startSimulator({
      seed: {
        users: [
          {
            id: "ci",
            email: "ci@example.com",
            balance: 3,
            keys: [{ token: "ci-token-0001", scopes: ["projects:read"] }],
          },
        ],
      },
    });
    try {
      expect(simulator.demoKey).toBeUndefined();
      const api = new Api(simulator.baseUrl, "ci-token-0001");
      const me = await api.get<{ user: { id: string }; apiKey: { scopes: string[] } }>("/me");
      expect(me.body.user.id).toBe("ci");
      expect(me.body.apiKey.scopes).toEqual(["projects:read"]);
      expectError(await api.post("/projects", { name: "x" }), 403, "insufficient_scope");
    } finally {
      await simulator.close();
    }
  });

  it("a bad seed or bad options fail with an error naming what to fix", async () => {
    await expect(
      startSimulator({
        seed: {
          users: [{ id: "u", email: "u@example.com", keys: [{ token: "tok-12345", scopes: ["apps:fly"] }] }],
        },
      }),
    ).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringContaining("seed.users[0].keys[0].scopes[0]"),
    });
    await expect(startSimulator({ clockSpeed: -1 })).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringContaining("clockSpeed"),
    });
  });
});
