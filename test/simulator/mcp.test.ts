import { setTimeout as sleep } from "node:timers/promises";
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type App,
  type AppStatus,
  type ErrorBody,
  expectError,
  type Harness,
  imageConfig,
  type Project,
  START,
  useSimulator,
} from "./support.ts";

// hosting-api.md, "MCP tools", "Authentication" (rules 3 and 7), "Errors" → Tool errors, and
// "Limits" (MCP: one HTTP request is one unit, batches refused), through the official MCP SDK.

const TOOLS = [
  "whoami",
  "read_docs",
  "list_projects",
  "create_project",
  "delete_project",
  "list_templates",
  "create_app",
  "update_app",
  "get_app_status",
  "get_app_logs",
  "get_app_usage",
  "get_build",
  "get_build_logs",
  "trigger_build",
  "restart_app",
  "stop_app",
  "delete_app",
  "delete_grid",
  "browse_catalog",
  "provision_servers",
  "get_provision_order",
  "list_servers",
  "power_servers",
  "deprovision_servers",
  "replace_server",
  "get_balance",
  "get_costs",
  "add_credits",
];

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

let keys = 0;
const newKey = () => `mcp-test-${process.pid}-${++keys}`;

/** MCP clients made in a test, closed after it. */
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

function mcpUrl(h: Harness): URL {
  return new URL("/mcp", h.simulator.baseUrl);
}

async function connect(h: Harness, token: string | undefined = h.simulator.demoKey): Promise<Client> {
  const client = new Client({ name: "berth-mcp-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(mcpUrl(h), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call<T = Record<string, unknown>>(client: Client, name: string, args = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  expect(JSON.parse(result.content[0]?.text ?? "")).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** A failed tool call: isError, `structuredContent.error` as REST's error body has it, and one sentence of text. */
async function callError(client: Client, name: string, args = {}): Promise<ErrorBody["error"]> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError).toBe(true);
  const { error } = result.structuredContent as unknown as ErrorBody;
  expect(error).toMatchObject({ code: expect.any(String), requestId: expect.stringMatching(/^req_/) });
  expect(error.message.length).toBeGreaterThan(0);
  expect(result.content).toEqual([{ type: "text", text: expect.stringContaining(error.code) }]);
  return error;
}

/** Every item of a list tool, paging until `nextCursor` is null (pages may be short). */
async function listAll<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await call(client, name, {
      ...args,
      ...(cursor === null ? {} : { cursor }),
    });
    items.push(...page.items);
    cursor = page.nextCursor ?? null;
  } while (cursor !== null);
  return items;
}

/** One raw JSON-RPC POST, for what the SDK won't send. */
async function post(h: Harness, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(mcpUrl(h), {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.simulator.demoKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === "" ? undefined : JSON.parse(text),
  };
}

async function deploy(client: Client): Promise<App> {
  const project = await call<Project>(client, "create_project", { name: "shop", idempotencyKey: newKey() });
  return call<App>(client, "create_app", {
    projectId: project.id,
    name: "web",
    config: imageConfig,
    idempotencyKey: newKey(),
  });
}

async function statusUntil(client: Client, app: App, done: (s: AppStatus) => boolean): Promise<AppStatus> {
  for (let i = 0; i < 500; i++) {
    const status = await call<AppStatus>(client, "get_app_status", {
      projectId: app.projectId,
      appId: app.id,
    });
    if (done(status)) return status;
    await sleep(10);
  }
  throw new Error(`app ${app.id} never reached the awaited status`);
}

describe("MCP server at /mcp", () => {
  // Harsh defaults (creates need keys and take time) on a clock 50 times faster than real time.
  // Harsh, with the simulator's sample values (a repository source has no field the spec shows).
  const h = useSimulator({
    profile: { base: "harsh", sampleValues: true },
    clock: { start: START, frozen: false },
    clockSpeed: 50,
  });

  it("lists every tool of the spec, each with an object inputSchema that describes its inputs", async () => {
    const client = await connect(h);
    expect(client.getServerVersion()?.name).toBe("berth-simulator");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema]));
    expect(byName.get("create_app")?.required).toEqual(
      expect.arrayContaining(["projectId", "name", "config", "idempotencyKey"]),
    );
    expect(byName.get("provision_servers")?.properties).toHaveProperty("gridIds");
    expect(byName.get("provision_servers")?.required).toEqual(
      expect.arrayContaining(["dryRun", "idempotencyKey"]),
    );
    for (const name of [
      "delete_project",
      "delete_app",
      "delete_grid",
      "deprovision_servers",
      "replace_server",
    ]) {
      expect(byName.get(name)?.properties, name).toHaveProperty("confirm");
    }
  });

  it("creates a project and an app, whose endpoint gets an address; REST sees the same app", async () => {
    const client = await connect(h);
    const app = await deploy(client);
    expect(app).toMatchObject({ name: "web", start: { state: expect.any(String) } });
    const status = await statusUntil(client, app, (s) => s.endpoints.some((e) => e.address !== null));
    expect(status.endpoints[0]?.address).toMatch(/^https:\/\//);

    const rest = await h.api.get<App>(`/projects/${app.projectId}/apps/${app.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ id: app.id, name: "web", config: { image: imageConfig.image } });
    expect(h.sim.requests({ operation: "mcp:create_app" })).toEqual([
      expect.objectContaining({ method: "POST", path: "/mcp", status: 200, replayed: false }),
    ]);
  });

  it("runs the app, build, docs and template tools", async () => {
    const client = await connect(h);
    const { topics } = await call<{ topics: { topic: string }[] }>(client, "read_docs");
    expect(topics.map((t) => t.topic)).toContain("idempotency");
    expect(await call(client, "read_docs", { topic: "idempotency" })).toMatchObject({
      text: expect.stringContaining("idempotencyKey"),
    });
    const { items } = await call<{ items: { notes: string }[] }>(client, "list_templates");
    expect(items.length).toBeGreaterThan(0);
    for (const template of items) expect(template.notes).toMatch(/Replace/);

    const app = await deploy(client);
    const ids = { projectId: app.projectId, appId: app.id };
    await statusUntil(client, app, (s) => s.state === "running");
    const updated = await call<App>(client, "update_app", {
      ...ids,
      config: { instances: { min: 1, max: 2 } },
    });
    expect(updated.config.instances).toEqual({ min: 1, max: 2 });
    expect(await call(client, "get_app_logs", { ...ids, maxBytes: 1000 })).toMatchObject({
      lines: expect.any(Number),
      truncated: expect.any(Boolean),
    });
    expect(await call(client, "get_app_usage", ids)).toMatchObject({ appId: app.id });
    await call(client, "restart_app", ids);
    expect((await callError(client, "trigger_build", ids)).code).toBe("no_build_source");

    const repo = await call<App>(client, "create_app", {
      projectId: app.projectId,
      name: "api",
      config: { ports: imageConfig.ports },
      source: { provider: "github", repository: "acme/api", branch: "main" },
      idempotencyKey: newKey(),
    });
    const buildId = repo.buildId ?? "";
    expect(await call(client, "get_build", { buildId })).toMatchObject({ id: buildId, appId: repo.id });
    expect(await call(client, "get_build_logs", { buildId })).toHaveProperty("text");
    const again = await call<{ id: string }>(client, "trigger_build", {
      projectId: app.projectId,
      appId: repo.id,
    });
    expect(again.id).not.toBe(buildId);
    expect((await callError(client, "delete_project", { projectId: app.projectId })).code).toBe(
      "confirmation_required",
    );
  });

  it("runs the dedicated-compute and billing tools", async () => {
    const client = await connect(h);
    const grid = async (name: string) =>
      (await h.api.post<{ id: string }>("/grids", { name }, { headers: { "idempotency-key": newKey() } }))
        .body.id;
    const gridId = await grid("pool");
    const { items: zones } = await call<{ items: { regionId: string }[] }>(client, "browse_catalog", {
      kind: "zones",
      region: "eu-central",
      available: true,
    });
    expect(zones.length).toBeGreaterThan(0);
    expect(zones.every((z) => z.regionId === "eu-central")).toBe(true);
    const order = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small", count: 2 };
    const estimate = await call(client, "provision_servers", {
      ...order,
      dryRun: true,
      idempotencyKey: newKey(),
    });
    expect(estimate).toMatchObject({ estimate: { count: 2, currency: "USD" } });
    const placed = await call<{ id: string }>(client, "provision_servers", {
      ...order,
      dryRun: false,
      gridIds: [gridId],
      idempotencyKey: newKey(),
    });
    for (let i = 0; ; i++) {
      const { state } = await call<{ state: string }>(client, "get_provision_order", { orderId: placed.id });
      if (state === "completed") break;
      expect(i).toBeLessThan(500);
      await sleep(10);
    }
    const servers = await listAll<{ address: string }>(client, "list_servers", {
      gridId: [gridId],
      limit: 5,
    });
    const [a, b] = servers.map((s) => s.address);
    expect(servers).toHaveLength(2);
    const replaced = await call(client, "replace_server", {
      address: a,
      confirm: true,
      idempotencyKey: newKey(),
    });
    expect(replaced).toMatchObject({ replacedAddress: a });
    // 202 bodies may be empty (harsh profile): the servers' states tell what happened.
    h.sim.setTimings({ power: 600 });
    const state = async (address: string | undefined) =>
      (await h.api.get<{ state: string }>(`/servers/${address}`)).body.state;
    await call(client, "power_servers", { addresses: [b], action: "reboot" });
    expect(await state(b)).toBe("rebooting");
    expect((await callError(client, "deprovision_servers", { addresses: [b] })).code).toBe(
      "confirmation_required",
    );
    expect(await state(b)).toBe("rebooting");
    await call(client, "deprovision_servers", { addresses: [b], confirm: true });
    expect(await state(b)).toBe("deprovisioning");

    const empty = await grid("empty");
    expect(await call(client, "delete_grid", { gridId: empty, confirm: true })).toEqual({});
    expectError(await h.api.get(`/grids/${empty}`), 404, "not_found");

    const { balance } = await call<{ balance: string }>(client, "get_balance");
    expect(await call(client, "get_costs", { from: "2030-01-01" })).toMatchObject({ from: "2030-01-01" });
    const payment = await call(client, "add_credits", { amount: 25 });
    expect(payment).toMatchObject({ paymentUrl: expect.stringMatching(/^https:\/\//), amount: "25.0000" });
    const after = await call<{ balance: string }>(client, "get_balance");
    expect(Number(after.balance)).toBeLessThanOrEqual(Number(balance));
  });

  it("refuses delete_app without confirm: true, and nothing happens", async () => {
    const client = await connect(h);
    const app = await deploy(client);
    const ids = { projectId: app.projectId, appId: app.id };
    expect((await callError(client, "delete_app", ids)).code).toBe("confirmation_required");
    expect((await callError(client, "delete_app", { ...ids, confirm: false })).code).toBe(
      "confirmation_required",
    );
    expect((await h.api.get(`/projects/${app.projectId}/apps/${app.id}`)).status).toBe(200);

    // With confirm, the REST rules apply: stop, wait until stopped, then delete.
    expect((await callError(client, "delete_app", { ...ids, confirm: true })).code).toBe("app_not_stopped");
    await call(client, "stop_app", ids);
    await statusUntil(client, app, (s) => s.state === "stopped");
    expect(await call(client, "delete_app", { ...ids, confirm: true })).toEqual({});
    expectError(await h.api.get(`/projects/${app.projectId}/apps/${app.id}`), 404, "not_found");
  });

  it("checks scopes before asking for confirmation: a read-only key is told it lacks the scope", async () => {
    const app = await deploy(await connect(h));
    const reader = h.sim.addKey({ userId: "usr_demo", scopes: ["apps:read"] });
    const client = await connect(h, reader.token);
    const error = await callError(client, "delete_app", { projectId: app.projectId, appId: app.id });
    expect(error).toMatchObject({ code: "insufficient_scope", requiredScopes: ["apps:admin"] });
  });

  it("answers an injected 429 at HTTP level with Retry-After, as the real limit, and the tool does not run", async () => {
    const client = await connect(h);
    h.sim.injectFault({ operation: "createProject", status: 429, retryAfterSec: 9, times: 1 });
    const raw = await post(
      h,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "create_project", arguments: { name: "limited", idempotencyKey: newKey() } },
      }),
    );
    expect(raw.status).toBe(429);
    expect(raw.headers.get("retry-after")).toBe("9");
    expect(raw.body).toMatchObject({ error: { code: "rate_limited", retryAfterSec: 9 } });
    h.sim.injectFault({ operation: "createProject", status: 429, retryAfterSec: 9, times: 1 });
    await expect(
      call(client, "create_project", { name: "limited", idempotencyKey: newKey() }),
    ).rejects.toMatchObject({
      code: 429,
    });
    expect((await h.api.get<{ items: unknown[] }>("/projects?name=limited")).body.items).toEqual([]);
  });

  it("answers a failed tool call with structuredContent.error equal to REST's error body", async () => {
    const client = await connect(h);
    const ids = { projectId: "not-a-project", appId: "0123456789abcdef01234567" };
    const error = await callError(client, "get_app_status", ids);
    const rest = await h.api.get(`/projects/${ids.projectId}/apps/${ids.appId}/status`);
    const restError = expectError(rest, 400, "validation_failed");
    expect({ ...error, requestId: "" }).toEqual({ ...restError, requestId: "" });
    expect(error.details).toEqual([{ path: "path.projectId", message: expect.any(String) }]);

    // Bad arguments are tool errors (so a model can correct them); an unknown tool is a protocol error.
    const bad = await callError(client, "create_project", { name: 42, idempotencyKey: newKey() });
    expect(bad).toMatchObject({ code: "validation_failed", details: [{ path: "name" }] });
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });

    // Scopes are the key's, exactly as over REST.
    const readOnly = h.sim.addKey({ userId: "usr_demo", scopes: ["projects:read"] });
    const limited = await connect(h, readOnly.token);
    const scope = await callError(limited, "create_project", { name: "x", idempotencyKey: newKey() });
    expect(scope).toMatchObject({ code: "insufficient_scope", requiredScopes: ["projects:write"] });
  });

  it("shares idempotency keys and injected faults with REST", async () => {
    const client = await connect(h);
    const idempotencyKey = newKey();
    const project = await call<Project>(client, "create_project", { name: "once", idempotencyKey });
    const replay = await h.api.post<Project>(
      "/projects",
      { name: "once" },
      { headers: { "idempotency-key": idempotencyKey } },
    );
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(project.id);
    expect((await callError(client, "create_project", { name: "other", idempotencyKey })).code).toBe(
      "idempotency_conflict",
    );
    const missing = await callError(client, "create_project", { name: "keyless" });
    expect(missing.details).toEqual([{ path: "header:Idempotency-Key", message: expect.any(String) }]);

    h.sim.injectFault({ operation: "createProject", status: 503, times: 1 });
    const fault = await callError(client, "create_project", { name: "late", idempotencyKey: newKey() });
    expect(fault.code).toBe("service_unavailable");

    // Act, then drop the answer: the call fails, the project exists, a retry with the key replays it.
    h.sim.injectFault({ operation: "createProject", dropResponse: true, times: 1 });
    const retried = { name: "dropped", idempotencyKey: newKey() };
    await expect(call(client, "create_project", retried)).rejects.toThrow();
    const again = await connect(h);
    const { id } = await call<Project>(again, "create_project", retried);
    const projects = await listAll<Project>(again, "list_projects", { name: "dropped" });
    expect(projects.map((p) => p.id)).toEqual([id]);
    const log = h.sim.requests({ operation: "mcp:create_project" }).map((r) => [r.dropped, r.replayed]);
    expect(log).toContainEqual([true, false]);
    expect(log).toContainEqual([false, true]);
  });

  it("refuses an OAuth access token on REST and accepts it on /mcp, where whoami shows the client", async () => {
    const response = await fetch(`${h.simulator.controlUrl}/oauth-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: "usr_demo", clientId: "claude", scopes: ["projects:read"] }),
    });
    expect(response.status).toBe(201);
    const token = (await response.json()) as { id: string; token: string; expiresAt: string };
    expect(token.token).toMatch(/^oat_/);
    expect(Date.parse(token.expiresAt)).toBeGreaterThan(Date.parse(START));

    expect(expectError(await h.api.as(token.token).get("/me"), 401, "unauthorized").message).toMatch(/MCP/);
    const client = await connect(h, token.token);
    expect(await call(client, "whoami")).toMatchObject({
      user: { id: "usr_demo" },
      apiKey: null,
      oauthClient: { clientId: "claude", tokenId: token.id, scopes: ["projects:read"] },
    });
    expect(await call(client, "list_projects")).toMatchObject({ items: [] });

    h.sim.revokeKey(token.id);
    const refused = await post(h, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      authorization: `Bearer ${token.token}`,
    });
    expect(refused).toMatchObject({ status: 401, body: { error: { code: "unauthorized" } } });
  });

  it("speaks JSON-RPC over HTTP: batches, bad JSON, unknown methods, notifications, GET", async () => {
    const first = await post(h, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(first).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 1, result: {} } });
    expect(first.headers.get("content-type")).toBe("application/json");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));

    const batch = await post(h, JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping" }]));
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({
      id: null,
      error: { code: -32600, message: /batches are not supported/ },
    });
    // A batch is still one unit.
    expect(Number(batch.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);

    const initialize = (protocolVersion: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
    for (const [asked, answered] of [
      ["2024-11-05", "2024-11-05"],
      ["2025-06-18", "2025-06-18"],
      // 2025-03-26 requires servers to accept batches, which the hosting spec refuses.
      ["2025-03-26", "2025-11-25"],
      ["1999-01-01", "2025-11-25"],
    ]) {
      const { body } = await post(h, initialize(asked ?? ""));
      expect(body.result).toMatchObject({ protocolVersion: answered, capabilities: { tools: {} } });
    }
    const badVersion = await post(h, initialize("2025-06-18"), { "mcp-protocol-version": "1999-01-01" });
    expect(badVersion).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    const batchVersion = await post(h, initialize("2025-06-18"), { "mcp-protocol-version": "2025-03-26" });
    expect(batchVersion).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await post(h, "{}", { accept: "text/html" })).toMatchObject({ status: 406 });

    expect(await post(h, "{nope")).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    expect(await post(h, JSON.stringify({ id: 3, method: "ping" }))).toMatchObject({
      status: 400,
      body: { id: 3, error: { code: -32600 } },
    });
    expect(await post(h, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "resources/list" }))).toMatchObject({
      status: 200,
      body: { id: 4, error: { code: -32601 } },
    });
    const note = await post(h, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(note).toMatchObject({ status: 202, body: undefined });

    const get = await fetch(mcpUrl(h), { headers: { authorization: `Bearer ${h.simulator.demoKey}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const anonymous = await fetch(mcpUrl(h), { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as ErrorBody).error.code).toBe("unauthorized");
  });
});

describe("MCP and REST share one rate-limit bucket", () => {
  const h = useSimulator({ rateLimits: { perCredential: 6, perUser: 1000, windowSec: 60 } });

  it("counts each HTTP request to /mcp as one unit of the credential's window", async () => {
    const key = h.sim.addKey({ userId: "usr_demo" });
    const rest = h.api.as(key.token);
    expect((await rest.get("/me")).headers.get("x-ratelimit-remaining")).toBe("5");
    // initialize, notifications/initialized, and the SDK's GET for an SSE stream (answered 405).
    const client = await connect(h, key.token);
    await vi.waitFor(() =>
      expect(h.sim.requests().filter((r) => r.keyId === key.id && r.method === "GET")).toHaveLength(1),
    );
    await call(client, "whoami");
    const last = await rest.get("/me");
    expect(last.status).toBe(200);
    expect(last.headers.get("x-ratelimit-remaining")).toBe("0");

    await expect(call(client, "whoami")).rejects.toMatchObject({ code: 429 });
    expectError(await rest.get("/me"), 429, "rate_limited");
  });
});

describe("MCP transport and authorization conformance (SDK client)", () => {
  const h = useSimulator();

  it("a 401 names the protected-resource metadata, which the SDK discovers", async () => {
    const anonymous = await fetch(mcpUrl(h), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(anonymous.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(anonymous);
    expect(resourceMetadataUrl?.pathname).toBe("/.well-known/oauth-protected-resource/mcp");
    const metadata = await discoverOAuthProtectedResourceMetadata(mcpUrl(h), {
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    });
    expect(metadata.resource).toBe(mcpUrl(h).href);
    expect(metadata.authorization_servers?.length).toBeGreaterThan(0);
    expect(metadata.scopes_supported).toContain("compute:spend");
    // Discovery without the header's hint finds it too.
    expect((await discoverOAuthProtectedResourceMetadata(mcpUrl(h))).resource).toBe(mcpUrl(h).href);
  });

  it("refuses a foreign Origin with 403, and accepts its own and loopback origins", async () => {
    const ping = (origin: string) =>
      post(h, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { origin });
    const foreign = await ping("https://evil.example");
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ error: { code: "origin_not_allowed" } });
    expect((await ping(new URL(h.simulator.baseUrl).origin)).status).toBe(200);
    expect((await ping("http://localhost:3000")).status).toBe(200);
  });

  it("the SDK client negotiates a version without batches", async () => {
    const client = await connect(h);
    expect(client.getServerVersion()?.name).toBe("berth-simulator");
    const transport = (client as unknown as { transport?: { protocolVersion?: string } }).transport;
    expect(transport?.protocolVersion).not.toBe("2025-03-26");
  });
});

describe("MCP in the spec-strict default", () => {
  const h = useSimulator({ profile: "harsh", timings: { createMin: 0, createMax: 0 } });

  it("a tool call with a value the spec doesn't show is a validation tool error naming it", async () => {
    const client = await connect(h);
    const project = await call<Project>(client, "create_project", { name: "shop", idempotencyKey: newKey() });
    const error = await callError(client, "create_app", {
      projectId: project.id,
      name: "web",
      config: { image: "nginx", ports: [{ port: 5432, protocol: "tcp" }] },
      idempotencyKey: newKey(),
    });
    expect(error).toMatchObject({
      code: "validation_failed",
      details: [{ path: "config.ports[0].protocol" }],
    });
    expect(error.message).toMatch(/not shown in the specification; the simulator refuses guesses/);
    const catalog = await callError(client, "browse_catalog", { kind: "instanceTypes", csp: "aws" });
    expect(catalog.details?.[0]?.path).toBe("query.csp");
  });
});
