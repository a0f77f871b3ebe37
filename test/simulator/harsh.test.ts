import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startSimulator, switches } from "../../src/simulator/index.ts";
import {
  Api,
  type App,
  type AppStatus,
  addUserWithKey,
  type Build,
  createApp,
  createProject,
  demoKey,
  expectError,
  type Grid,
  type Harness,
  newKey,
  type Order,
  type Page,
  type Project,
  status,
  useSimulator,
} from "./support.ts";

// The simulator's default profile reads hosting-api.md as harshly as it permits. Each describe
// checks one harsh behaviour over HTTP, then that its switch restores the lenient choice.

const small = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const repo = { config: {}, source: { provider: "github", repository: "acme/web", branch: "main" } };

/** Every item of a list, following nextCursor until it is null. */
async function all<T>(api: Api, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor === null ? "" : `${path.includes("?") ? "&" : "?"}cursor=${cursor}`;
    const page: Page<T> = (await api.get<Page<T>>(`${path}${suffix}`)).body;
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

/**
 * The harsh default on a frozen clock; creates answer at once unless a test says otherwise. It
 * accepts the simulator's sample values (repository sources, ports other than the one the spec
 * shows) unless `strict`; the describe on guesses checks the strict default.
 */
function useHarsh(options: Parameters<typeof useSimulator>[0] = {}, strict = false) {
  return useSimulator({
    profile: strict ? "harsh" : { base: "harsh", sampleValues: true },
    timings: { createMin: 0, createMax: 0 },
    ...options,
  });
}

describe("the default profile", () => {
  it("is harsh: every lenient switch is off, and /_sim/profile says so", async () => {
    const simulator = await startSimulator({ controlApi: true });
    try {
      const profile = await new Api(simulator.controlUrl, undefined).get<Record<string, boolean>>("/profile");
      expect(Object.keys(profile.body).sort()).toEqual([...switches].sort());
      expect(Object.values(profile.body).every((on) => on === false)).toBe(true);
    } finally {
      await simulator.close();
    }
  });

  it("is set by preset or by switch: options, seed file, and PUT /_sim/profile", async () => {
    const seed = { profile: { fullPages: true }, users: [{ id: "u", email: "u@example.com" }] };
    const simulator = await startSimulator({ controlApi: true, seed });
    const control = new Api(simulator.controlUrl, undefined);
    try {
      expect(simulator.sim.profile()).toMatchObject({ fullPages: true, uniqueNames: false });
      const lenient = await control.request<Record<string, boolean>>("PUT", "/profile", { body: "lenient" });
      expect(Object.values(lenient.body).every((on) => on)).toBe(true);
      const one = await control.request<Record<string, boolean>>("PUT", "/profile", {
        body: { base: "harsh", uniqueNames: true },
      });
      expect(one.body).toMatchObject({ uniqueNames: true, fullPages: false });
      const bad = await control.request("PUT", "/profile", { body: { noSuchSwitch: true } });
      expectError(bad, 400, "validation_failed");
    } finally {
      await simulator.close();
    }
    const fromOptions = await startSimulator({ seed, profile: "lenient" });
    expect(Object.values(fromOptions.sim.profile()).every((on) => on)).toBe(true);
    await fromOptions.close();
  });
});

describe("1. names are not unique", () => {
  const h = useHarsh();

  it("a second create with a taken name makes a second project, grid and app", async () => {
    await createProject(h.api, "same");
    const project = await createProject(h.api, "same");
    for (let i = 0; i < 2; i++) {
      expect((await h.api.post("/grids", { name: "pool" }, newKey())).status).toBe(201);
      await createApp(h.api, project.id, { name: "web" });
    }
    expect(await all<Project>(h.api, "/projects?name=same")).toHaveLength(2);
    expect(await all<Grid>(h.api, "/grids?name=pool")).toHaveLength(2);
    expect(await all<App>(h.api, `/projects/${project.id}/apps?name=web`)).toHaveLength(2);
  });

  it("uniqueNames: a taken app name is 409 name_taken", async () => {
    h.sim.setProfile({ uniqueNames: true });
    const project = await createProject(h.api);
    await createApp(h.api, project.id, { name: "web" });
    const second = await h.api.post(
      `/projects/${project.id}/apps`,
      { name: "web", config: { image: "a" } },
      newKey(),
    );
    expectError(second, 409, "name_taken");
  });
});

describe("2. idempotency keys", () => {
  const h = useHarsh();

  it("are required on the five creates: 400 validation_failed naming the header", async () => {
    const project = await createProject(h.api);
    const grid = (await h.api.post<Grid>("/grids", { name: "g" }, newKey())).body;
    const creates: [string, unknown][] = [
      ["/projects", { name: "p" }],
      [`/projects/${project.id}/apps`, { name: "a", config: { image: "nginx" } }],
      ["/grids", { name: "g" }],
      ["/servers/provision", { ...small, count: 1, dryRun: true, gridIds: [grid.id] }],
      [`/servers/0x${"a".repeat(40)}/replace`, {}],
    ];
    for (const [path, body] of creates) {
      const error = expectError(await h.api.post(path, body), 400, "validation_failed");
      expect(error.details).toEqual([expect.objectContaining({ path: "header:Idempotency-Key" })]);
      expect(error.message).toMatch(/required/);
    }
  });

  it("are scoped by credential and key across operations: another operation is idempotency_conflict", async () => {
    const key = { headers: { "idempotency-key": "one-key" } };
    expect((await h.api.post("/projects", { name: "p" }, key)).status).toBe(201);
    expectError(await h.api.post("/grids", { name: "p" }, key), 409, "idempotency_conflict");
    // Another credential of the same user has its own keys.
    const other = demoKey(h, { scopes: ["*"] });
    expect((await other.api.post("/grids", { name: "p" }, key)).status).toBe(201);
  });

  it("every refusal after the key is read is recorded: a 400 replays like a 402 or 403", async () => {
    const project = await createProject(h.api);
    const key = { headers: { "idempotency-key": "bad-create" } };
    const apps = `/projects/${project.id}/apps`;
    const bad = { name: "a", config: { image: "nginx", instances: { min: 3, max: 1 } } };
    const first = expectError(await h.api.post(apps, bad, key), 400, "validation_failed");
    const again = await h.api.post<{ error: { requestId: string } }>(apps, bad, key);
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.error.requestId).toBe(first.requestId);
    // The fixed request is other arguments: it needs a new key.
    const fixed = { name: "a", config: { image: "nginx" } };
    expectError(await h.api.post(apps, fixed, key), 409, "idempotency_conflict");
    expect((await h.api.post(apps, fixed, newKey())).status).toBe(201);
  });

  it("successOnlyRecorded keeps refusals unrecorded, so the fixed request may reuse the key", async () => {
    h.sim.setProfile({ successOnlyRecorded: true });
    const key = { headers: { "idempotency-key": "bad-project" } };
    expectError(await h.api.post("/projects", { name: "" }, key), 400, "validation_failed");
    const retried = await h.api.post("/projects", { name: "" }, key);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect((await h.api.post("/projects", { name: "p" }, key)).status).toBe(201);
  });

  it("optionalIdempotencyKey and idempotencyPerOperation restore the lenient choices", async () => {
    h.sim.setProfile({ optionalIdempotencyKey: true, idempotencyPerOperation: true });
    expect((await h.api.post("/projects", { name: "p" })).status).toBe(201);
    const key = { headers: { "idempotency-key": "one-key" } };
    expect((await h.api.post("/projects", { name: "p" }, key)).status).toBe(201);
    expect((await h.api.post("/grids", { name: "p" }, key)).status).toBe(201);
  });
});

/**
 * Sends a request and resolves once the simulator holds it: a 1 ms fault on `operation` marks its
 * arrival (the create time, if any, is then being waited out). `answer` is the request's own promise.
 */
async function held<T>(
  h: Harness,
  operation: string,
  send: () => Promise<T>,
): Promise<{ answer: Promise<T> }> {
  const marker = h.sim.injectFault({ operation, latencyMs: 1, times: 1 });
  const answer = send();
  while (!h.sim.spentFaults().some((f) => f.id === marker)) await sleep(5);
  return { answer };
}

describe("3. creates and orders take time", () => {
  // A running clock at ×10: 10 simulated seconds are one real second.
  const h = useSimulator({
    profile: "harsh",
    clock: {},
    clockSpeed: 10,
    timings: { createMin: 10, createMax: 10 },
  });

  it("a same-key retry meanwhile gets request_in_progress with retryAfterSec, and nothing exists yet", async () => {
    const key = { headers: { "idempotency-key": "slow-create" } };
    const started = Date.now();
    const { answer: first } = await held(h, "createProject", () =>
      h.api.post<Project>("/projects", { name: "slow" }, key),
    );
    const retry = expectError(
      await h.api.post("/projects", { name: "slow" }, key),
      409,
      "request_in_progress",
    );
    expect(retry.retryAfterSec).toBeGreaterThanOrEqual(1);
    expect((await h.api.get<Page<Project>>("/projects")).body.items).toHaveLength(0);
    expect((await first).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await h.api.post("/projects", { name: "slow" }, key)).headers.get("idempotent-replayed")).toBe(
      "true",
    );
  });

  it("a dry run answers at once; a real order takes the time", async () => {
    const answered: string[] = [];
    const order = (dryRun: boolean) =>
      h.api.post("/servers/provision", { ...small, count: 1, dryRun }, newKey()).then((response) => {
        answered.push(dryRun ? "dry run" : "order");
        return response;
      });
    const started = Date.now();
    const { answer: real } = await held(h, "provisionServers", () => order(false));
    expect((await order(true)).status).toBe(200);
    expect((await real).status).toBe(202);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // The dry run, sent while the order was held, answered first.
    expect(answered).toEqual(["dry run", "order"]);
  });

  it("instantCreates answers at once", async () => {
    const answered: string[] = [];
    const { answer: slow } = await held(h, "createProject", () =>
      createProject(h.api, "slow").then(() => answered.push("slow")),
    );
    h.sim.setProfile({ instantCreates: true });
    await createProject(h.api, "instant");
    answered.push("instant");
    await slow;
    expect(answered).toEqual(["instant", "slow"]);
  });
});

describe("4. rate limits slide", () => {
  const h = useHarsh({ rateLimits: { perCredential: 3, perUser: 5 } });
  const me = (api: Api) => api.get("/me");

  it("a burst across a fixed-window boundary gets nothing extra; refused requests count", async () => {
    h.sim.setClock("2030-01-15T00:00:59.000Z");
    for (let i = 0; i < 3; i++) expect((await me(h.api)).status).toBe(200);
    // From 00:01:00 a fixed window would start afresh; the sliding one still holds the three.
    for (const second of [61, 62, 63]) {
      h.sim.setClock(`2030-01-15T00:01:${String(second - 60).padStart(2, "0")}.000Z`);
      const refused = expectError(await me(h.api), 429, "rate_limited");
      expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
      expect(refused.message).not.toMatch(/bsk_/);
    }
    // At 00:02:00 the first three have left the window, but the refusals at 00:01:01–03 hold it shut.
    h.sim.setClock("2030-01-15T00:02:00.000Z");
    const held = await me(h.api);
    expect(held.status).toBe(429);
    expect(held.headers.get("x-ratelimit-remaining")).toBe("0");
    h.sim.setClock("2030-01-15T00:03:30.000Z");
    expect((await me(h.api)).status).toBe(200);
  });

  it("counts per user across keys, and per client address without a credential", async () => {
    const second = demoKey(h, { scopes: ["*"] });
    for (const api of [h.api, h.api, h.api, second.api, second.api]) expect((await me(api)).status).toBe(200);
    const third = demoKey(h, { scopes: ["*"] });
    expectError(await me(third.api), 429, "rate_limited");
    const anonymous = h.api.as(undefined);
    for (let i = 0; i < 3; i++) expect((await me(anonymous)).status).toBe(401);
    expectError(await me(anonymous), 429, "rate_limited");
  });

  it("fixedWindows and rejectedRequestsFree restore the lenient windows", async () => {
    h.sim.setProfile({ fixedWindows: true, rejectedRequestsFree: true });
    h.sim.setClock("2030-01-15T00:00:59.000Z");
    for (let i = 0; i < 3; i++) expect((await me(h.api)).status).toBe(200);
    expect((await me(h.api)).status).toBe(429);
    h.sim.advanceClock(1);
    for (let i = 0; i < 3; i++) expect((await me(h.api)).status).toBe(200);
  });
});

describe("5. nothing heals by itself", () => {
  const h = useHarsh();

  it("a deferred app stays deferred after credits arrive, until it is started again", async () => {
    h.sim.setBalance("usr_demo", 0);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect(app.start?.state).toBe("deferred");
    h.sim.setBalance("usr_demo", 100);
    h.sim.advanceClock(60);
    expect((await status(h.api, app)).state).toBe("deferred");
    expect((await h.api.post(`/projects/${project.id}/apps/${app.id}/start`)).status).toBe(202);
    h.sim.advanceClock(10);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("a start_blocked app stays blocked after capacity returns", async () => {
    h.sim.setCapacity("eu-central-1a", false);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: { image: "nginx", placement: { region: "eu-central", zone: "eu-central-1a" } },
    });
    expect((await status(h.api, app)).state).toBe("start_blocked");
    h.sim.setCapacity("eu-central-1a", true);
    h.sim.advanceClock(60);
    expect((await status(h.api, app)).state).toBe("start_blocked");
  });

  it("selfHealing resumes it", async () => {
    h.sim.setProfile({ selfHealing: true });
    h.sim.setBalance("usr_demo", 0);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.setBalance("usr_demo", 100);
    h.sim.advanceClock(10);
    expect((await status(h.api, app)).state).toBe("running");
  });
});

describe("6. money", () => {
  const h = useHarsh();
  // An app of 1 CPU and 1 GiB costs 0.024 USD an hour; native.small costs 0.052.

  it("a start or a real order needs the balance to cover one hour of what it starts", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: { image: "nginx", hardware: { cpu: 1, memoryMb: 1024 } },
    });
    await h.api.post(`/projects/${project.id}/apps/${app.id}/stop`);
    h.sim.advanceClock(5);
    h.sim.setBalance("usr_demo", "0.02");
    const start = expectError(
      await h.api.post(`/projects/${project.id}/apps/${app.id}/start`),
      402,
      "insufficient_balance",
    );
    expect(start).toMatchObject({ balance: "0.0200", hourlyCost: "0.0240" });
    expectError(
      await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false }, newKey()),
      402,
      "insufficient_balance",
    );
    const created = await createApp(h.api, project.id, {
      name: "b",
      config: { image: "nginx", hardware: { cpu: 1 } },
    });
    expect(created.start?.state).toBe("deferred");
  });

  it("positiveBalanceSuffices starts compute on any positive balance", async () => {
    h.sim.setProfile({ positiveBalanceSuffices: true });
    h.sim.setBalance("usr_demo", "0.02");
    const order = await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false }, newKey());
    expect(order.status).toBe(202);
  });

  it("compute:spend is needed for every change that redeploys and for build triggers", async () => {
    const project = await createProject(h.api);
    const image = await createApp(h.api, project.id);
    const source = await createApp(h.api, project.id, { name: "repo", ...repo });
    const writer = demoKey(h, { scopes: ["apps:write"] }).api;
    const base = `/projects/${project.id}/apps`;
    for (const config of [
      { image: "nginx:2" },
      { ports: [] },
      { env: [{ name: "A", value: "1" }] },
      { placement: { region: "eu-central" } },
    ]) {
      const refused = expectError(
        await writer.patch(`${base}/${image.id}`, { config }),
        403,
        "insufficient_scope",
      );
      expect(refused.requiredScopes).toContain("compute:spend");
    }
    expectError(await writer.post(`${base}/${source.id}/builds`), 403, "insufficient_scope");
    expect((await writer.patch(`${base}/${image.id}`, { name: "renamed" })).status).toBe(200);
  });

  it("spendOnlyForSizing asks for it only for sizing changes", async () => {
    h.sim.setProfile({ spendOnlyForSizing: true });
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const writer = demoKey(h, { scopes: ["apps:write"] }).api;
    expect(
      (await writer.patch(`/projects/${project.id}/apps/${app.id}`, { config: { image: "nginx:2" } })).status,
    ).toBe(200);
    expectError(
      await writer.patch(`/projects/${project.id}/apps/${app.id}`, { config: { hardware: { cpu: 2 } } }),
      403,
      "insufficient_scope",
    );
  });
});

describe("7. sparse responses", () => {
  const h = useHarsh();

  async function manyBuilds(n: number): Promise<Build[]> {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, repo);
    const builds: Build[] = [];
    for (let i = 0; i < n; i++) {
      const triggered = await h.api.post<Build>(`/projects/${project.id}/apps/${app.id}/builds`);
      expect(triggered.status).toBe(202);
      const current = await h.api.get<App>(`/projects/${project.id}/apps/${app.id}`);
      // The trigger answers with the build even where other 202s are empty: there is no build listing.
      expect(triggered.body.id).toBe(current.body.buildId);
      builds.push((await h.api.get<Build>(`/builds/${triggered.body.id}`)).body);
    }
    return builds;
  }

  it("pollAfterSec is sometimes absent; 202 bodies are empty; records carry unknown fields", async () => {
    const builds = await manyBuilds(12);
    expect(builds.some((b) => !("pollAfterSec" in b))).toBe(true);
    expect(builds.some((b) => typeof b.pollAfterSec === "number")).toBe(true);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const stop = await h.api.post(`/projects/${project.id}/apps/${app.id}/stop`);
    expect({ status: stop.status, body: stop.body }).toEqual({ status: 202, body: "" });
    expect(project).toHaveProperty("revision");
    expect(app).toHaveProperty("revision");
    expect(await status(h.api, app)).toHaveProperty("revision");
  });

  it("now and then a state the docs don't list shows for a while", async () => {
    const project = await createProject(h.api);
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) seen.add((await status(h.api, await createApp(h.api, project.id))).state);
    expect(seen).toContain("pending_capacity");
    h.sim.advanceClock(10);
    const apps = (await h.api.get<Page<App>>(`/projects/${project.id}/apps?limit=200`)).body.items;
    for (const app of apps) expect((await status(h.api, app)).state).toBe("running");
  });

  it("pollAfterAlways, acceptedBodies, documentedFieldsOnly and knownStatesOnly restore full answers", async () => {
    h.sim.setProfile({
      pollAfterAlways: true,
      acceptedBodies: true,
      documentedFieldsOnly: true,
      knownStatesOnly: true,
    });
    const builds = await manyBuilds(6);
    expect(builds.every((b) => typeof b.pollAfterSec === "number")).toBe(true);
    expect(builds.every((b) => b.state === "queued")).toBe(true);
    expect(builds[0]).not.toHaveProperty("revision");
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const stop = await h.api.post<AppStatus>(`/projects/${project.id}/apps/${app.id}/stop`);
    expect(stop.body).toMatchObject({ targetState: "stopped" });
  });
});

describe("8. paging", () => {
  const h = useHarsh();

  async function walk(): Promise<Project[][]> {
    const pages: Project[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `&cursor=${cursor}`;
      const page: Page<Project> = (await h.api.get<Page<Project>>(`/projects?limit=4${query}`)).body;
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return pages;
  }

  it("some pages are short or empty and still carry a cursor; every item comes once", async () => {
    for (let i = 0; i < 40; i++) await createProject(h.api, `p${i}`);
    const pages = await walk();
    expect(pages.flat().map((p) => p.name)).toEqual(Array.from({ length: 40 }, (_, i) => `p${i}`));
    expect(pages.slice(0, -1).some((page) => page.length < 4)).toBe(true);
  });

  it("fullPages: full pages, null cursor on the last", async () => {
    h.sim.setProfile({ fullPages: true });
    for (let i = 0; i < 16; i++) await createProject(h.api, `p${i}`);
    expect((await walk()).map((page) => page.length)).toEqual([4, 4, 4, 4]);
  });
});

describe("9. early polls are counted", () => {
  const h = useHarsh({ profile: { pollAfterAlways: true, sampleValues: true } });

  it("a build or order read before its pollAfterSec shows in /_sim/stats", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, repo);
    const first = await h.api.get<Build>(`/builds/${app.buildId}`);
    expect(first.body.pollAfterSec).toBeGreaterThan(0);
    await h.api.get(`/builds/${app.buildId}`);
    h.sim.advanceClock(first.body.pollAfterSec ?? 0);
    await h.api.get(`/builds/${app.buildId}`);
    const stats = await new Api(h.simulator.controlUrl, undefined).get<{
      earlyPolls: { total: number; byOperation: Record<string, number> };
      requests: { byOperation: Record<string, Record<string, number>> };
    }>("/stats");
    expect(stats.body.earlyPolls).toEqual({ total: 1, byOperation: { getBuild: 1 } });
    expect(stats.body.requests.byOperation.getBuild).toEqual({ "200": 3 });
  });
});

describe("10. a grid in use can't be deleted", () => {
  const h = useHarsh();

  it("409 grid_in_use while servers or apps use it; gridDeleteDetaches detaches them", async () => {
    const grid = (await h.api.post<Grid>("/grids", { name: "pool" }, newKey())).body;
    const order = await h.api.post<Order>(
      "/servers/provision",
      { ...small, count: 1, dryRun: false, gridIds: [grid.id] },
      newKey(),
    );
    expect(order.status).toBe(202);
    h.sim.advanceClock(30);
    const refused = expectError(await h.api.delete(`/grids/${grid.id}`), 409, "grid_in_use");
    expect(refused.servers).toHaveLength(1);
    h.sim.setProfile({ gridDeleteDetaches: true });
    expect((await h.api.delete(`/grids/${grid.id}`)).status).toBe(204);
  });

  it("an app's grid priority holds the grid too", async () => {
    const other = addUserWithKey(h, { id: "owner" });
    const grid = (await other.api.post<Grid>("/grids", { name: "pool" }, newKey())).body;
    const project = await createProject(other.api);
    await createApp(other.api, project.id, { config: { image: "nginx", gridPriorities: { [grid.id]: 1 } } });
    const refused = expectError(await other.api.delete(`/grids/${grid.id}`), 409, "grid_in_use");
    expect(refused.apps).toHaveLength(1);
  });
});

describe("11. values the spec doesn't show are refused", () => {
  const h = useHarsh({}, true);
  const notShown = /not shown in the specification; the simulator refuses guesses/;

  it("an invented protocol, csp, provider or field name is a 400 naming it", async () => {
    const project = await createProject(h.api);
    const apps = `/projects/${project.id}/apps`;
    const cases: [string, unknown, string][] = [
      [
        apps,
        { name: "a", config: { image: "nginx", ports: [{ port: 80, protocol: "http" }] } },
        "config.ports[0].protocol",
      ],
      [
        apps,
        { name: "a", config: { image: "nginx", ports: [{ port: 80, protocol: "weird" }] } },
        "config.ports[0].protocol",
      ],
      [
        apps,
        { name: "a", config: { image: "nginx", env: [{ name: "A", value: "1" }] } },
        "config.env[0].name",
      ],
      [
        apps,
        { name: "a", config: { image: "nginx", volumes: [{ name: "v", mountPath: "/d", sizeGb: 1 }] } },
        "config.volumes[0].name",
      ],
      [apps, { name: "a", config: { image: "nginx", hardware: { cpu: 1 } } }, "config.hardware.cpu"],
      [
        apps,
        { name: "a", config: {}, source: { provider: "github", repository: "a/b", branch: "main" } },
        "source.provider",
      ],
      ["/servers/provision", { ...small, count: 1, dryRun: true, csp: "aws" }, "csp"],
    ];
    for (const [path, body, detail] of cases) {
      const error = expectError(await h.api.post(path, body, newKey()), 400, "validation_failed");
      expect(error.details?.map((d) => d.path)).toContain(detail);
      expect(error.message).toMatch(notShown);
    }
    expectError(await h.api.get("/catalog/instance-types?csp=gcp"), 400, "validation_failed");
  });

  it("what the spec shows passes: http80_load_balancer, instances, and the service's own compute", async () => {
    const project = await createProject(h.api);
    const config = {
      image: "nginx",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
      instances: { min: 1, max: 2 },
    };
    expect((await h.api.post(`/projects/${project.id}/apps`, { name: "a", config }, newKey())).status).toBe(
      201,
    );
    const dryRun = await h.api.post(
      "/servers/provision",
      { ...small, count: 1, dryRun: true, csp: "native" },
      newKey(),
    );
    expect(dryRun.status).toBe(200);
  });

  it("sampleValues accepts the simulator's own samples", async () => {
    h.sim.setProfile({ sampleValues: true });
    const project = await createProject(h.api);
    const config = {
      image: "nginx",
      ports: [{ port: 80, protocol: "tcp" }],
      env: [{ name: "A", value: "1" }],
    };
    expect((await h.api.post(`/projects/${project.id}/apps`, { name: "a", config }, newKey())).status).toBe(
      201,
    );
    expect((await h.api.get("/catalog/instance-types?csp=aws")).status).toBe(200);
  });
});
