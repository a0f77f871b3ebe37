import { beforeEach, describe, expect, it } from "vitest";
import { routes } from "../../src/simulator/index.ts";
import {
  type App,
  createApp,
  createProject,
  type ErrorBody,
  type Grid,
  type Order,
  type Page,
  useSimulator,
} from "./support.ts";

// Bad input on every endpoint gets the right status and a clear error naming what to fix; never a 500.

interface Fixtures {
  projectId: string;
  appId: string;
  buildId: string;
  gridId: string;
  address: string;
  orderId: string;
  invoiceNumber: string;
  userId: string;
}

interface Case {
  name: string;
  method: string;
  path: (f: Fixtures) => string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  status: number;
  code: string;
  /** A path the error details must name. */
  detail?: string | ((f: Fixtures) => string);
  /** The error message, exactly. */
  message?: string;
}

const json = { "content-type": "application/json" };
const apps = (f: Fixtures) => `/projects/${f.projectId}/apps`;
const app = (f: Fixtures) => `/projects/${f.projectId}/apps/${f.appId}`;
const image = { image: "nginx" };
const provision = {
  dryRun: true,
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  count: 1,
};
const unknownGuid = "00000000-0000-4000-8000-000000000000";

const cases: Case[] = [
  // Bodies: wrong types, unknown fields, not JSON, too big, wrong media type.
  {
    name: "name of the wrong type",
    method: "POST",
    path: () => "/projects",
    body: { name: 5 },
    status: 400,
    code: "validation_failed",
    detail: "name",
  },
  {
    name: "unknown top-level field",
    method: "POST",
    path: () => "/projects",
    body: { name: "x", colour: "red" },
    status: 400,
    code: "validation_failed",
    detail: "colour",
  },
  {
    name: "a JSON array body",
    method: "POST",
    path: () => "/projects",
    body: [],
    status: 400,
    code: "validation_failed",
    detail: "body",
  },
  {
    name: "a JSON null body",
    method: "POST",
    path: () => "/projects",
    raw: "null",
    headers: json,
    status: 400,
    code: "validation_failed",
    detail: "body",
  },
  {
    name: "invalid JSON",
    method: "POST",
    path: () => "/projects",
    raw: '{"name": "x"',
    headers: json,
    status: 400,
    code: "validation_failed",
    detail: "body",
  },
  {
    name: "a missing body",
    method: "POST",
    path: () => "/projects",
    status: 400,
    code: "validation_failed",
    detail: "body",
  },
  {
    name: "a body over 1 MiB",
    method: "POST",
    path: () => "/projects",
    raw: `{"name":"${"x".repeat(1024 * 1024)}"}`,
    headers: json,
    status: 413,
    code: "payload_too_large",
  },
  {
    name: "a body that is not JSON",
    method: "POST",
    path: () => "/projects",
    raw: "name=x",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    status: 415,
    code: "unsupported_media_type",
  },
  {
    name: "an Idempotency-Key with whitespace",
    method: "POST",
    path: () => "/projects",
    body: { name: "x" },
    headers: { "idempotency-key": "a b" },
    status: 400,
    code: "validation_failed",
    detail: "header:Idempotency-Key",
  },
  {
    name: "an empty Idempotency-Key",
    method: "POST",
    path: () => "/projects",
    body: { name: "x" },
    headers: { "idempotency-key": "" },
    status: 400,
    code: "validation_failed",
    detail: "header:Idempotency-Key",
  },
  {
    name: "an unknown nested config field",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, replicas: 3 } },
    status: 400,
    code: "validation_failed",
    detail: "config.replicas",
  },
  {
    name: "a port given as a string",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, ports: [{ port: "80", protocol: "http" }] } },
    status: 400,
    code: "validation_failed",
    detail: "config.ports[0].port",
  },
  {
    name: "an unknown protocol",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, ports: [{ port: 80, protocol: "gopher" }] } },
    status: 400,
    code: "validation_failed",
    detail: "config.ports[0].protocol",
  },
  {
    name: "a port listed twice",
    method: "POST",
    path: apps,
    body: {
      name: "x",
      config: {
        ...image,
        ports: [
          { port: 80, protocol: "http" },
          { port: 80, protocol: "tcp" },
        ],
      },
    },
    status: 400,
    code: "validation_failed",
    detail: "config.ports",
  },
  {
    name: "instances min above max",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, instances: { min: 3, max: 1 } } },
    status: 400,
    code: "validation_failed",
    detail: "config.instances",
  },
  {
    name: "an invalid env name",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, env: [{ name: "1BAD", value: "v" }] } },
    status: 400,
    code: "validation_failed",
    detail: "config.env[0].name",
  },
  {
    name: "a null env value on create",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, env: [{ name: "A", value: null, secret: true }] } },
    status: 400,
    code: "validation_failed",
    detail: "config.env[0].value",
  },
  {
    name: "a grid priority keyed by a non-GUID",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, gridPriorities: { "not-a-guid": 1 } } },
    status: 400,
    code: "validation_failed",
    detail: "config.gridPriorities.not-a-guid",
  },
  {
    name: "a grid priority for an unknown grid",
    method: "POST",
    path: apps,
    body: { name: "x", config: { ...image, gridPriorities: { [unknownGuid]: 1 } } },
    status: 400,
    code: "validation_failed",
    detail: `config.gridPriorities.${unknownGuid}`,
  },
  {
    name: "an image reference with a space",
    method: "POST",
    path: apps,
    body: { name: "x", config: { image: "nginx latest" } },
    status: 400,
    code: "validation_failed",
    detail: "config.image",
  },
  {
    name: "a malformed repository",
    method: "POST",
    path: apps,
    body: { name: "x", config: {}, source: { provider: "github", repository: "nope", branch: "main" } },
    status: 400,
    code: "validation_failed",
    detail: "source.repository",
  },
  {
    name: "source on an image app update",
    method: "PATCH",
    path: app,
    body: { source: { provider: "github", repository: "a/b", branch: "main" } },
    status: 400,
    code: "validation_failed",
    detail: "source",
  },
  {
    name: "hardware cpu as a string",
    method: "PATCH",
    path: app,
    body: { config: { hardware: { cpu: "2" } } },
    status: 400,
    code: "validation_failed",
    detail: "config.hardware.cpu",
  },
  {
    name: "a body on an operation that takes none",
    method: "POST",
    path: (f) => `${app(f)}/start`,
    body: { force: true },
    status: 400,
    code: "validation_failed",
    detail: "force",
  },
  {
    name: "a non-object body on an operation that takes none",
    method: "POST",
    path: (f) => `${app(f)}/stop`,
    raw: "[1]",
    headers: json,
    status: 400,
    code: "validation_failed",
    detail: "body",
  },
  {
    name: "provision without dryRun",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, dryRun: undefined },
    status: 400,
    code: "validation_failed",
    detail: "dryRun",
  },
  {
    name: "provision of zero servers",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, count: 0 },
    status: 400,
    code: "validation_failed",
    detail: "count",
  },
  {
    name: "provision in an unknown region",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, region: "moon-1" },
    status: 400,
    code: "validation_failed",
    detail: "region",
  },
  {
    name: "provision of another csp's instance type",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, instanceType: "aws.small" },
    status: 400,
    code: "validation_failed",
    detail: "instanceType",
  },
  {
    name: "provision into a malformed grid id",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, gridIds: ["g1"] },
    status: 400,
    code: "validation_failed",
    detail: "gridIds[0]",
  },
  {
    name: "an unknown power action",
    method: "POST",
    path: () => "/servers/power",
    body: { addresses: [`0x${"a".repeat(40)}`], action: "explode" },
    status: 400,
    code: "validation_failed",
    detail: "action",
  },
  {
    name: "power with no addresses",
    method: "POST",
    path: () => "/servers/power",
    body: { addresses: [], action: "reboot" },
    status: 400,
    code: "validation_failed",
    detail: "addresses",
  },
  {
    name: "power of a malformed address",
    method: "POST",
    path: () => "/servers/power",
    body: { addresses: ["0x12"], action: "reboot" },
    status: 400,
    code: "validation_failed",
    detail: "addresses[0]",
  },
  {
    name: "power of an unknown server",
    method: "POST",
    path: () => "/servers/power",
    body: { addresses: [`0x${"b".repeat(40)}`], action: "reboot" },
    status: 404,
    code: "not_found",
  },
  {
    name: "deprovision with confirm of the wrong type",
    method: "POST",
    path: () => "/servers/deprovision",
    body: { addresses: [`0x${"a".repeat(40)}`], confirm: "yes" },
    status: 400,
    code: "validation_failed",
    detail: "confirm",
  },
  {
    name: "replace with an unknown field",
    method: "POST",
    path: (f) => `/servers/${f.address}/replace`,
    body: { keepDisk: true },
    status: 400,
    code: "validation_failed",
    detail: "keepDisk",
  },
  // Path values: malformed ids are 400, well-formed unknown ids 404.
  {
    name: "a malformed project id",
    method: "GET",
    path: () => "/projects/xyz",
    status: 400,
    code: "validation_failed",
    detail: "path.projectId",
  },
  {
    name: "an unknown project id",
    method: "GET",
    path: () => `/projects/${"0".repeat(24)}`,
    status: 404,
    code: "not_found",
  },
  {
    name: "a short app id",
    method: "GET",
    path: (f) => `/projects/${f.projectId}/apps/abc`,
    status: 400,
    code: "validation_failed",
    detail: "path.appId",
  },
  {
    name: "an unknown app id",
    method: "GET",
    path: (f) => `/projects/${f.projectId}/apps/${"f".repeat(24)}/status`,
    status: 404,
    code: "not_found",
  },
  {
    name: "a malformed build id",
    method: "GET",
    path: () => "/builds/42",
    status: 400,
    code: "validation_failed",
    detail: "path.buildId",
  },
  {
    name: "an unknown build id",
    method: "GET",
    path: () => `/builds/bld_${"0".repeat(24)}/logs`,
    status: 404,
    code: "not_found",
  },
  {
    name: "a grid id that is not a GUID",
    method: "GET",
    path: () => "/grids/grid-1",
    status: 400,
    code: "validation_failed",
    detail: "path.gridId",
  },
  {
    name: "a malformed server address",
    method: "GET",
    path: () => "/servers/0xZZ",
    status: 400,
    code: "validation_failed",
    detail: "path.address",
  },
  {
    name: "an uppercase project id (ids are compared exactly)",
    method: "GET",
    path: (f) => `/projects/${f.projectId.toUpperCase()}`,
    status: 400,
    code: "validation_failed",
    detail: "path.projectId",
  },
  {
    name: "an uppercase server address",
    method: "GET",
    path: (f) => `/servers/0x${f.address.slice(2).toUpperCase()}`,
    status: 400,
    code: "validation_failed",
    detail: "path.address",
  },
  {
    name: "an uppercase grid id in a body",
    method: "POST",
    path: () => "/servers/provision",
    body: { ...provision, gridIds: [unknownGuid.toUpperCase().replace("0000-4000", "000A-4000")] },
    status: 400,
    code: "validation_failed",
    detail: "gridIds[0]",
  },
  {
    name: "a malformed order id",
    method: "GET",
    path: () => "/servers/orders/7",
    status: 400,
    code: "validation_failed",
    detail: "path.orderId",
  },
  {
    name: "a malformed invoice number",
    method: "GET",
    path: () => "/billing/invoices/2030/pdf",
    status: 400,
    code: "validation_failed",
    detail: "path.invoiceNumber",
  },
  {
    name: "broken percent-encoding",
    method: "GET",
    path: () => "/projects/%E0%A4%A",
    status: 400,
    code: "validation_failed",
    detail: "path.projectId",
  },
  // Queries: coercion failures, unknown parameters, bad cursors.
  {
    name: "a negative limit",
    method: "GET",
    path: () => "/projects?limit=-1",
    status: 400,
    code: "validation_failed",
    detail: "query.limit",
  },
  {
    name: "a limit above the maximum says the maximum",
    method: "GET",
    path: () => "/projects?limit=201",
    status: 400,
    code: "validation_failed",
    detail: "query.limit",
    message: "query.limit: must be at most 200",
  },
  {
    name: "a limit of 0 says the minimum",
    method: "GET",
    path: () => "/projects?limit=0",
    status: 400,
    code: "validation_failed",
    detail: "query.limit",
    message: "query.limit: must be at least 1",
  },
  {
    name: "a fractional limit",
    method: "GET",
    path: () => "/grids?limit=1.5",
    status: 400,
    code: "validation_failed",
    detail: "query.limit",
  },
  {
    name: "a scalar parameter given twice",
    method: "GET",
    path: () => "/projects?limit=1&limit=2",
    status: 400,
    code: "validation_failed",
    detail: "query.limit",
  },
  {
    name: "a garbage cursor",
    method: "GET",
    path: (f) => `${apps(f)}?cursor=%%%`,
    status: 400,
    code: "validation_failed",
    detail: "query.cursor",
  },
  {
    name: "a log budget of zero",
    method: "GET",
    path: (f) => `${app(f)}/logs?maxBytes=0`,
    status: 400,
    code: "validation_failed",
    detail: "query.maxBytes",
  },
  {
    name: "a log budget that is not a number",
    method: "GET",
    path: (f) => `${app(f)}/logs?maxBytes=lots`,
    status: 400,
    code: "validation_failed",
    detail: "query.maxBytes",
  },
  {
    name: "an unknown region filter",
    method: "GET",
    path: () => "/catalog/zones?region=moon",
    status: 400,
    code: "validation_failed",
    detail: "query.region",
  },
  {
    name: "an impossible date",
    method: "GET",
    path: () => "/billing/costs?from=2030-13-45",
    status: 400,
    code: "validation_failed",
    detail: "query.from",
  },
  {
    name: "a grid filter that is not a GUID",
    method: "GET",
    path: () => "/servers?gridId=abc",
    status: 400,
    code: "validation_failed",
    detail: "query.gridId[0]",
  },
];

describe("Bad input", () => {
  const h = useSimulator();
  let fixtures: Fixtures;

  beforeEach(async () => {
    const project = await createProject(h.api);
    const imageApp = await createApp(h.api, project.id);
    const repoApp = await createApp(h.api, project.id, {
      name: "repo",
      config: {},
      source: { provider: "github", repository: "a/b", branch: "main" },
    });
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const order = (
      await h.api.post<Order>("/servers/provision", { ...provision, dryRun: false, gridIds: [grid.id] })
    ).body;
    h.sim.advanceClock(30);
    const invoices = (await h.api.get<Page<{ number: string }>>("/billing/invoices")).body.items;
    fixtures = {
      projectId: project.id,
      appId: imageApp.id,
      buildId: (repoApp as App).buildId ?? "",
      gridId: grid.id,
      address: (await h.api.get<Order>(`/servers/orders/${order.id}`)).body.servers[0] ?? "",
      orderId: order.id,
      invoiceNumber: invoices[0]?.number ?? "",
      userId: h.sim.addUser({ id: "guest", email: "guest@example.com" }).id,
    };
  });

  it.each(cases)("$name → $status $code", async (c) => {
    const response = await h.api.request<ErrorBody>(c.method, c.path(fixtures), {
      ...(c.body === undefined ? {} : { body: c.body }),
      ...(c.raw === undefined ? {} : { rawBody: c.raw }),
      ...(c.headers === undefined ? {} : { headers: c.headers }),
    });
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: c.status,
      code: c.code,
    });
    expect(response.body.error.message).not.toBe("");
    if (c.message !== undefined) expect(response.body.error.message).toBe(c.message);
    expect(response.body.error.requestId).toBe(response.headers.get("x-request-id"));
    if (c.detail !== undefined) {
      const detail = typeof c.detail === "string" ? c.detail : c.detail(fixtures);
      expect(response.body.error.details?.map((d) => d.path)).toContain(detail);
    }
  });

  it("every operation names an unknown body field or query parameter", async () => {
    for (const route of routes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: keyof Fixtures) => fixtures[name]);
      const withBody = route.method === "POST" || route.method === "PATCH";
      const response = await h.api.request<ErrorBody>(
        route.method,
        withBody ? path : `${path}?zzz=1`,
        withBody ? { body: { zzz: 1 } } : {},
      );
      expect(`${route.operation} ${response.status}`).toBe(`${route.operation} 400`);
      expect(response.body.error.details?.map((d) => d.path)).toContain(withBody ? "zzz" : "query.zzz");
    }
  });

  it("garbage in the path, query and body of every operation never causes a 5xx", async () => {
    const garbage: { path: (p: string) => string; raw: string }[] = [
      { path: (p) => p.replace(/\{\w+\}/g, "%00%ff"), raw: "{" },
      { path: (p) => p.replace(/\{\w+\}/g, "x".repeat(300)), raw: '"just a string"' },
      {
        path: (p) => `${p.replace(/\{\w+\}/g, "0")}?limit=NaN&cursor=&maxBytes=1e309`,
        raw: '{"a":{"b":[1,{"c":null}]}}',
      },
      { path: (p) => p.replace(/\{\w+\}/g, "%2F..%2F"), raw: "[[[[[]]]]]" },
    ];
    for (const route of routes) {
      for (const g of garbage) {
        const response = await h.api.request<ErrorBody>(route.method, g.path(route.path), {
          ...(route.method === "GET" ? {} : { rawBody: g.raw, headers: json }),
        });
        expect(`${route.operation} ${response.status < 500 ? "ok" : response.status}`).toBe(
          `${route.operation} ok`,
        );
        if (response.status >= 400) expect(response.body.error.code).toMatch(/^[a-z_]+$/);
      }
    }
  });
});
