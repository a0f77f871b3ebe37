import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import {
  type Api,
  type App,
  addUserWithKey,
  createApp,
  createProject,
  demoKey,
  expectError,
  type Grid,
  imageConfig,
  newKey,
  type Order,
  type Page,
  type Project,
  type Server,
  status,
  useSimulator,
} from "./support.ts";

// hosting-api.md, "Endpoints" → Common rules, Pagination, Idempotency; "Limits"; "Errors" → Diagnostics; "Versioning".

describe("Common rules", () => {
  const h = useSimulator();

  it("1. POST and PATCH take a JSON body with Content-Type application/json", async () => {
    const wrongType = await h.api.post("/projects", undefined, {
      rawBody: JSON.stringify({ name: "p" }),
      headers: { "content-type": "text/plain" },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toMatchObject({ error: { code: "unsupported_media_type" } });
    const withCharset = await h.api.post("/projects", undefined, {
      rawBody: JSON.stringify({ name: "p" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(withCharset.status).toBe(201);
  });

  it("1. GET and DELETE take their inputs from the query string (unknown parameters are refused)", async () => {
    await createProject(h.api, "a");
    await createProject(h.api, "b");
    const byName = await h.api.get<Page<Project>>("/projects?name=b");
    expect(byName.body.items.map((p) => p.name)).toEqual(["b"]);
    const unknown = await h.api.get("/projects?nmae=b");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      error: { code: "validation_failed", details: [{ path: "query.nmae" }] },
    });
  });

  it("2. array query values may repeat the parameter or be comma-separated", async () => {
    const grids: Grid[] = [];
    for (const name of ["g1", "g2", "g3"]) grids.push((await h.api.post<Grid>("/grids", { name })).body);
    for (const grid of grids) {
      await h.api.post("/servers/provision", {
        dryRun: false,
        region: "eu-central",
        zone: "eu-central-1a",
        instanceType: "native.small",
        count: 1,
        gridIds: [grid.id],
      });
    }
    h.sim.advanceClock(30);
    const [a, b] = grids.map((g) => g.id);
    const repeated = await h.api.get<Page<Server>>(`/servers?gridId=${a}&gridId=${b}`);
    const commas = await h.api.get<Page<Server>>(`/servers?gridId=${a},${b}`);
    expect(repeated.body.items).toHaveLength(2);
    expect(commas.body.items).toEqual(repeated.body.items);
  });

  it("3. booleans in queries accept true, false, 1 and 0 (and nothing else)", async () => {
    h.sim.setCapacity("eu-central-1b", false);
    const zones = async (value: string) =>
      (
        await h.api.get<Page<{ id: string }>>(`/catalog/zones?region=eu-central&available=${value}`)
      ).body.items.map((z) => z.id);
    expect(await zones("true")).toEqual(["eu-central-1a", "eu-central-1c"]);
    expect(await zones("1")).toEqual(["eu-central-1a", "eu-central-1c"]);
    expect(await zones("false")).toEqual(["eu-central-1b"]);
    expect(await zones("0")).toEqual(["eu-central-1b"]);
    const bad = await h.api.get("/catalog/zones?available=yes");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { details: [{ path: "query.available" }] } });
  });

  it("3. numeric parameters are converted according to their schema", async () => {
    for (const name of ["a", "b", "c"]) await createProject(h.api, name);
    const two = await h.api.get<Page<Project>>("/projects?limit=2");
    expect(two.body.items).toHaveLength(2);
    const notNumber = await h.api.get("/projects?limit=two");
    expect(notNumber.status).toBe(400);
    expect(notNumber.body).toMatchObject({
      error: { code: "validation_failed", details: [{ path: "query.limit" }] },
    });
  });

  it("4. path values are URL-decoded", async () => {
    const project = await createProject(h.api);
    const encoded = [...project.id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
    const response = await h.api.get<Project>(`/projects/${encoded}`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(project.id);
  });

  it("5. responses are JSON, except the invoice PDF", async () => {
    const list = await h.api.get("/projects");
    expect(list.headers.get("content-type")).toBe("application/json");
    const invoices = await h.api.get<Page<{ number: string }>>("/billing/invoices");
    const number = invoices.body.items[0]?.number ?? "";
    const pdf = await fetch(`${h.simulator.baseUrl}/billing/invoices/${number}/pdf`, {
      headers: { authorization: `Bearer ${h.simulator.demoKey}` },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await pdf.arrayBuffer()).toString("latin1");
    expect(bytes.startsWith("%PDF-1.4")).toBe(true);
    expect(bytes.trimEnd().endsWith("%%EOF")).toBe(true);
    // A valid cross-reference: startxref points at the xref table, and every entry at its object.
    const startxref = Number(/startxref\n(\d+)/.exec(bytes)?.[1]);
    expect(bytes.slice(startxref, startxref + 4)).toBe("xref");
    const offsets = [...bytes.matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets.map((offset) => bytes.slice(offset).split("\n")[0])).toEqual([
      "1 0 obj",
      "2 0 obj",
      "3 0 obj",
      "4 0 obj",
      "5 0 obj",
    ]);
    expect(bytes).toContain(`Invoice ${number}`);
  });

  it("6. accepted work: create app 201, start/stop/restart/build 202, dry run 200, real order 202", async () => {
    const project = await createProject(h.api);
    const created = await h.api.post<App>(`/projects/${project.id}/apps`, {
      name: "repo",
      config: {},
      source: { provider: "github", repository: "acme/web", branch: "main" },
    });
    expect(created.status).toBe(201);
    const app = created.body;
    const base = `/projects/${project.id}/apps/${app.id}`;
    expect((await h.api.post(`${base}/builds`)).status).toBe(202);
    expect((await h.api.post(`${base}/stop`)).status).toBe(202);
    expect((await h.api.post(`${base}/start`)).status).toBe(202);
    expect((await h.api.post(`${base}/restart`)).status).toBe(202);
    const order = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small", count: 1 };
    expect((await h.api.post("/servers/provision", { ...order, dryRun: true })).status).toBe(200);
    expect((await h.api.post("/servers/provision", { ...order, dryRun: false })).status).toBe(202);
  });
});

describe("REST operations (design.md §4 paths)", () => {
  const h = useSimulator();

  it("serves every documented path with the documented success status", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      name: "repo",
      config: {},
      source: { provider: "github", repository: "acme/web", branch: "main" },
    });
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const order = (
      await h.api.post<Order>("/servers/provision", {
        dryRun: false,
        region: "eu-central",
        zone: "eu-central-1a",
        instanceType: "native.small",
        count: 2,
      })
    ).body;
    h.sim.advanceClock(60);
    const [first, second] = (await h.api.get<Page<Server>>("/servers")).body.items;
    const invoice = (await h.api.get<Page<{ number: string }>>("/billing/invoices")).body.items[0]?.number;
    const a = `/projects/${project.id}/apps/${app.id}`;
    const buildId = app.buildId ?? "";
    const calls: [string, string, unknown, number][] = [
      ["GET", "/me", undefined, 200],
      ["GET", "/projects", undefined, 200],
      ["GET", `/projects/${project.id}`, undefined, 200],
      ["PATCH", `/projects/${project.id}`, { name: "renamed" }, 200],
      ["GET", `/projects/${project.id}/apps?name=repo&limit=10`, undefined, 200],
      ["GET", a, undefined, 200],
      ["PATCH", a, { config: { ports: [] } }, 200],
      ["GET", `${a}/status`, undefined, 200],
      ["POST", `${a}/builds`, undefined, 202],
      ["GET", `/builds/${buildId}`, undefined, 200],
      ["GET", `/builds/${buildId}/logs`, undefined, 200],
      ["GET", `${a}/logs?maxBytes=1000`, undefined, 200],
      ["GET", `${a}/usage`, undefined, 200],
      ["POST", `${a}/restart`, undefined, 202],
      ["POST", `${a}/start`, undefined, 202],
      ["POST", `${a}/stop`, undefined, 202],
      ["GET", "/grids", undefined, 200],
      ["GET", `/grids/${grid.id}`, undefined, 200],
      ["GET", "/servers", undefined, 200],
      ["GET", `/servers/orders/${order.id}`, undefined, 200],
      ["POST", "/servers/power", { addresses: [first?.address], action: "reboot" }, 202],
      ["POST", `/servers/${second?.address}/replace`, {}, 202],
      ["GET", "/catalog/regions", undefined, 200],
      ["GET", "/catalog/zones", undefined, 200],
      ["GET", "/catalog/instance-types", undefined, 200],
      ["GET", "/billing/balance", undefined, 200],
      ["GET", "/billing/costs", undefined, 200],
      ["GET", "/billing/invoices", undefined, 200],
      ["GET", `/billing/invoices/${invoice}/pdf`, undefined, 200],
      ["POST", "/servers/deprovision", { addresses: [first?.address], confirm: true }, 202],
      ["DELETE", `/grids/${grid.id}`, undefined, 204],
    ];
    for (const [method, path, body, expected] of calls) {
      const response = await h.api.request(method, path, body === undefined ? {} : { body });
      expect(`${method} ${path} → ${response.status}`).toBe(`${method} ${path} → ${expected}`);
    }
    h.sim.advanceClock(60);
    expect((await h.api.delete(a)).status).toBe(204);
    expect((await h.api.delete(`/projects/${project.id}`)).status).toBe(204);
  });

  it("answers 404 not_found for an unknown path and 405 with Allow for a known path's other method", async () => {
    const unknown = await h.api.get("/nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: "not_found" } });
    const wrongMethod = await h.api.request("PUT", "/projects");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, POST");
  });
});

describe("Pagination", () => {
  const h = useSimulator();

  async function pages(path: string, api: Api = h.api): Promise<string[][]> {
    const out: string[][] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes("?") ? "&" : "?";
      const url: string = cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`;
      const page: Page<Project> = (await api.get<Page<Project>>(url)).body;
      out.push(page.items.map((p) => p.name));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return out;
  }

  it("1/3. lists take limit and cursor, return nextCursor, and end only when nextCursor is null", async () => {
    for (const name of ["p1", "p2", "p3", "p4", "p5"]) await createProject(h.api, name);
    expect(await pages("/projects?limit=2")).toEqual([["p1", "p2"], ["p3", "p4"], ["p5"]]);
    const exact = await h.api.get<Page<Project>>("/projects?limit=5");
    expect(exact.body.nextCursor).toBeNull();
  });

  it("2. the default limit is 50 and the maximum 200", async () => {
    for (let i = 0; i < 60; i++) await createProject(h.api, `p${i}`);
    const first = await h.api.get<Page<Project>>("/projects");
    expect(first.body.items).toHaveLength(50);
    expect(first.body.nextCursor).not.toBeNull();
    expect((await h.api.get<Page<Project>>("/projects?limit=200")).body.items).toHaveLength(60);
    const tooMany = await h.api.get("/projects?limit=201");
    expect(tooMany.status).toBe(400);
    expect((await h.api.get("/projects?limit=0")).status).toBe(400);
  });

  it("4. cursors are opaque and keep the filters: garbage or other filters are refused", async () => {
    for (const name of ["x", "x", "x", "y"]) await createProject(h.api, name);
    const first = await h.api.get<Page<Project>>("/projects?name=x&limit=1");
    const cursor = first.body.nextCursor ?? "";
    expect(cursor).not.toMatch(/^\d+$/);
    const same = await h.api.get<Page<Project>>(`/projects?name=x&limit=1&cursor=${cursor}`);
    expect(same.body.items.map((p) => p.name)).toEqual(["x"]);
    const other = await h.api.get(`/projects?name=y&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({
      error: { code: "validation_failed", details: [{ path: "query.cursor" }] },
    });
    const garbage = await h.api.get("/projects?cursor=bm90LWEtY3Vyc29y");
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({ error: { details: [{ path: "query.cursor" }] } });
  });

  it("4. a cursor is accepted only by the list and the credential it was returned to", async () => {
    for (const name of ["a", "b"]) await createProject(h.api, name);
    for (const name of ["a", "b"]) await h.api.post("/grids", { name }, newKey());
    const cursor = (await h.api.get<Page<Project>>("/projects?limit=1")).body.nextCursor ?? "";
    const grids = await h.api.get(`/grids?limit=1&cursor=${cursor}`);
    expect(expectError(grids, 400, "validation_failed").message).toMatch(/returned by another list/);
    const bob = h.api.as(h.sim.addKey({ userId: h.sim.addUser({ email: "bob@example.com" }).id }).token);
    const stolen = await bob.get(`/projects?limit=1&cursor=${cursor}`);
    expect(expectError(stolen, 400, "validation_failed").message).toMatch(/returned to another credential/);
    const project = await createProject(h.api, "c");
    await createApp(h.api, project.id, { name: "one" });
    await createApp(h.api, project.id, { name: "two" });
    const appCursor = (await h.api.get<Page<App>>(`/projects/${project.id}/apps?limit=1`)).body.nextCursor;
    const other = await createProject(h.api, "d");
    const elsewhere = await h.api.get(`/projects/${other.id}/apps?limit=1&cursor=${appCursor}`);
    expect(expectError(elsewhere, 400, "validation_failed").details?.[0]?.path).toBe("query.cursor");
    const own = await h.api.get<Page<App>>(`/projects/${project.id}/apps?limit=1&cursor=${appCursor}`);
    expect(own.body.items.map((a) => a.name)).toEqual(["two"]);
  });
});

describe("Idempotency", () => {
  const h = useSimulator();
  const key = (k: string) => ({ headers: { "idempotency-key": k } });

  it("1. the key is 1 to 255 characters with no whitespace", async () => {
    expect((await h.api.post("/projects", { name: "a" }, key("k".repeat(255)))).status).toBe(201);
    expect((await h.api.post("/projects", { name: "a" }, key("k"))).status).toBe(201);
    for (const bad of ["k".repeat(256), "has space", "tab\there"]) {
      const response = await h.api.post("/projects", { name: "a" }, key(bad));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { code: "validation_failed", details: [{ path: "header:Idempotency-Key" }] },
      });
    }
  });

  it("2. same key, credential, operation and arguments replays the recorded response with Idempotent-Replayed", async () => {
    const first = await h.api.post<Project>("/projects", { name: "once" }, key("create-once"));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await h.api.post<Project>("/projects", { name: "once" }, key("create-once"));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await h.api.get<Page<Project>>("/projects")).body.items).toHaveLength(1);
  });

  it("2. argument order inside the JSON body does not matter", async () => {
    const project = await createProject(h.api);
    const path = `/projects/${project.id}/apps`;
    const first = await h.api.post<App>(path, { name: "w", config: imageConfig }, key("app-1"));
    const reordered = await h.api.post<App>(path, { config: { ...imageConfig }, name: "w" }, key("app-1"));
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    expect(reordered.body.id).toBe(first.body.id);
  });

  it("2. a key is scoped by credential and by operation", async () => {
    const first = await h.api.post<Project>("/projects", { name: "p" }, key("shared"));
    const otherKey = demoKey(h, { scopes: ["*"] }).api;
    const second = await otherKey.post<Project>("/projects", { name: "p" }, key("shared"));
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    const grid = await h.api.post<Grid>("/grids", { name: "p" }, key("shared"));
    expect(grid.status).toBe(201);
    expect(grid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("3. keys are kept for 24 hours of the service's clock", async () => {
    const first = await h.api.post<Project>("/projects", { name: "p" }, key("day"));
    h.sim.advanceClock(24 * 3600 - 1);
    const within = await h.api.post<Project>("/projects", { name: "p" }, key("day"));
    expect(within.body.id).toBe(first.body.id);
    h.sim.advanceClock(2);
    const after = await h.api.post<Project>("/projects", { name: "p" }, key("day"));
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(after.body.id).not.toBe(first.body.id);
  });

  it("4. the same key with different arguments fails with idempotency_conflict (409)", async () => {
    await h.api.post("/projects", { name: "a" }, key("conflict"));
    const response = await h.api.post("/projects", { name: "b" }, key("conflict"));
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: { code: "idempotency_conflict" } });
  });

  it("5. the same key while the first request runs fails with request_in_progress and retryAfterSec", async () => {
    h.sim.injectFault({ operation: "createProject", latencyMs: 800, times: 1 });
    const slow = h.api.post<Project>("/projects", { name: "slow" }, key("busy"));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const busy = await h.api.post("/projects", { name: "slow" }, key("busy"));
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ error: { code: "request_in_progress", retryAfterSec: 1 } });
    expect(busy.headers.get("retry-after")).toBe("1");
    const first = await slow;
    const retried = await h.api.post<Project>("/projects", { name: "slow" }, key("busy"));
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.id).toBe(first.body.id);
  });

  it("5. retryAfterSec covers an injected latency: a retry after it gets the recorded answer", async () => {
    h.sim.injectFault({ operation: "createProject", latencyMs: 2600, times: 1 });
    const slow = h.api.post<Project>("/projects", { name: "slow" }, key("late"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const busy = await h.api.post("/projects", { name: "slow" }, key("late"));
    expect(busy.body).toMatchObject({ error: { code: "request_in_progress", retryAfterSec: 3 } });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const retried = await h.api.post<Project>("/projects", { name: "slow" }, key("late"));
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.id).toBe((await slow).body.id);
  });

  it("all five create operations honour the key", async () => {
    const project = await createProject(h.api);
    const provision = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small", count: 1 };
    const order = (await h.api.post<Order>("/servers/provision", { ...provision, dryRun: false })).body;
    h.sim.advanceClock(60);
    const address = (await h.api.get<Order>(`/servers/orders/${order.id}`)).body.servers[0] ?? "";
    const creates: [string, unknown][] = [
      ["/projects", { name: "p" }],
      [`/projects/${project.id}/apps`, { name: "w", config: imageConfig }],
      ["/grids", { name: "g" }],
      ["/servers/provision", { ...provision, dryRun: false }],
      [`/servers/${address}/replace`, {}],
    ];
    for (const [path, body] of creates) {
      const first = await h.api.post(path, body, key(`k-${path}`));
      const again = await h.api.post(path, body, key(`k-${path}`));
      expect([path, first.status < 300, again.headers.get("idempotent-replayed")]).toEqual([
        path,
        true,
        "true",
      ]);
      expect(again.body).toEqual(first.body);
    }
  });

  it("6. a dry run and the real order need different keys (their inputs differ)", async () => {
    const body = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small", count: 1 };
    expect((await h.api.post("/servers/provision", { ...body, dryRun: true }, key("order-1"))).status).toBe(
      200,
    );
    const real = await h.api.post("/servers/provision", { ...body, dryRun: false }, key("order-1"));
    expect(real.status).toBe(409);
    expect(real.body).toMatchObject({ error: { code: "idempotency_conflict" } });
  });

  it("7. an action dropped after it was recorded replays on retry; one dropped before recording repeats", async () => {
    h.sim.injectFault({ operation: "createProject", dropResponse: true, times: 1 });
    await expect(h.api.post("/projects", { name: "dropped" }, key("drop-1"))).rejects.toThrow();
    const retry = await h.api.post<Project>("/projects", { name: "dropped" }, key("drop-1"));
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await h.api.get<Page<Project>>("/projects")).body.items).toHaveLength(1);

    h.sim.injectFault({ operation: "createProject", dropResponse: true, forgetIdempotency: true, times: 1 });
    await expect(h.api.post("/projects", { name: "twice" }, key("drop-2"))).rejects.toThrow();
    const repeated = await h.api.post<Project>("/projects", { name: "twice" }, key("drop-2"));
    expect(repeated.headers.get("idempotent-replayed")).toBeNull();
    const names = (await h.api.get<Page<Project>>("/projects")).body.items.map((p) => p.name);
    expect(names.filter((n) => n === "twice")).toHaveLength(2);
  });

  it("8. restarting an app and triggering a build are not idempotent", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: {},
      source: { provider: "github", repository: "acme/web", branch: "main" },
    });
    h.sim.advanceClock(30);
    const base = `/projects/${project.id}/apps/${app.id}`;
    const nodes = [(await status(h.api, app)).nodes[0]?.id];
    for (let i = 0; i < 2; i++) {
      await h.api.post(`${base}/restart`, undefined, key("restart"));
      h.sim.advanceClock(5);
      nodes.push((await status(h.api, app)).nodes[0]?.id);
    }
    expect(new Set(nodes).size).toBe(3);
    const b1 = await h.api.post<{ id: string }>(`${base}/builds`, undefined, key("build"));
    const b2 = await h.api.post<{ id: string }>(`${base}/builds`, undefined, key("build"));
    expect(b1.body.id).not.toBe(b2.body.id);
  });
});

describe("Limits", () => {
  const h = useSimulator();

  it("request bodies are limited to 1 MiB (413 payload_too_large)", async () => {
    const json = JSON.stringify({ name: "big" });
    const fits = json + " ".repeat(1024 * 1024 - json.length);
    expect(
      (
        await h.api.post("/projects", undefined, {
          rawBody: fits,
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(201);
    const tooBig = await h.api.post("/projects", undefined, {
      rawBody: `${fits} `,
      headers: { "content-type": "application/json" },
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ error: { code: "payload_too_large", limitBytes: 1048576 } });
  });

  it("300 requests per minute per credential (the real default), then 429 rate_limited with Retry-After", async () => {
    for (let i = 0; i < 300; i++) {
      const response = await h.api.get("/me");
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(299 - i));
    }
    const limited = await h.api.get("/me");
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: "rate_limited" } });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("300");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    h.sim.advanceClock(retryAfter);
    expect((await h.api.get("/me")).status).toBe(200);
  });

  it("every response carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds of the window end)", async () => {
    const responses = [
      await h.api.get("/me"),
      await h.api.get("/nope"),
      await h.api.as("bad-key-123").get("/me"),
    ];
    for (const response of responses) {
      expect(response.headers.get("x-ratelimit-limit")).toBe("300");
      expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(0);
      // The clock is frozen at a minute boundary: the window ends 60 s later.
      expect(response.headers.get("x-ratelimit-reset")).toBe(
        String(Date.parse("2030-01-15T00:01:00Z") / 1000),
      );
    }
  });
});

describe("Limits: per user across credentials (configured down for speed)", () => {
  const h = useSimulator({ rateLimits: { perCredential: 3, perUser: 5 } });

  it("a user's keys share the per-user allowance; the header names the binding limit", async () => {
    const second = demoKey(h, { scopes: ["*"] }).api;
    for (let i = 0; i < 3; i++) expect((await h.api.get("/me")).status).toBe(200);
    expect((await h.api.get("/me")).status).toBe(429);
    // The second key has 2 left of its own, but the user only 2 of 5: the user's window binds.
    const a = await second.get("/me");
    expect([a.status, a.headers.get("x-ratelimit-limit"), a.headers.get("x-ratelimit-remaining")]).toEqual([
      200,
      "5",
      "1",
    ]);
    const b = await second.get("/me");
    expect([b.status, b.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    const c = await second.get("/me");
    expect(c.status).toBe(429);
    expect(c.body).toMatchObject({ error: { code: "rate_limited" } });
    const other = addUserWithKey(h, { id: "someone" }).api;
    expect((await other.get("/me")).status).toBe(200);
  });
});

describe("Diagnostics", () => {
  const h = useSimulator();

  it("every response has X-Request-Id, quoted in error bodies; the API key never appears", async () => {
    const responses = [
      await h.api.get("/me"),
      await h.api.get("/projects/000000000000000000000000"),
      await h.api.as("wrong-key-1234").get("/me"),
      await h.api.post("/projects", { name: 1 }),
      await fetch(`${h.simulator.baseUrl.replace("/v1", "")}/elsewhere`).then(async (r) => ({
        status: r.status,
        headers: r.headers,
        body: await r.json(),
      })),
    ];
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const [i, response] of responses.entries()) {
      expect(ids[i]).toMatch(/^req_[0-9a-f]{24}$/);
      if (response.status >= 400) expect(response.body).toMatchObject({ error: { requestId: ids[i] } });
      expect(JSON.stringify(response.body)).not.toContain(h.simulator.demoKey);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("Versioning", () => {
  it("1. the REST API lives under /v1, part of the base URL", async () => {
    const simulator = await startSimulator();
    try {
      expect(simulator.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const headers = { authorization: `Bearer ${simulator.demoKey}` };
      expect((await fetch(`${simulator.baseUrl}/me`, { headers })).status).toBe(200);
      expect((await fetch(simulator.baseUrl.replace("/v1", "/v2/me"), { headers })).status).toBe(404);
      expect((await fetch(simulator.baseUrl.replace("/v1", "/me"), { headers })).status).toBe(404);
    } finally {
      await simulator.close();
    }
  });
});
