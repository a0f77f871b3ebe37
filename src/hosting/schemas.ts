import { z } from "zod";

// Response records, as far as hosting-api.md promises them. Objects are loose: fields the service
// adds pass through untouched. A field the spec shows is required (missing or mistyped, it is a
// `response_invalid` error naming it); a field it leaves "not shown" is optional. States are open
// strings: a state the client doesn't know means "in progress", never a parse failure. A create
// answer promises only its `id`.

const id = z.string().min(1);
const timestamp = z.string();
/** Money: a decimal string such as "12.5000". */
const decimal = z.string();
const serviceError = z.looseObject({ code: z.string(), message: z.string() });

export function page<T extends z.ZodType>(item: T) {
  return z.looseObject({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** No response body (204). */
export const empty = z.undefined();

export const me = z.looseObject({
  user: z.looseObject({ id, email: z.string() }),
  apiKey: z
    .looseObject({
      id,
      scopes: z.array(z.string()),
      projectIds: z.array(z.string()),
      expiresAt: timestamp.nullable(),
    })
    .nullable(),
  oauthClient: z.unknown(),
});

export const project = z.looseObject({ id, name: z.string(), createdAt: timestamp.optional() });

/** What a create promises: the new object's id (and for an app, its start and build). */
export const created = z.looseObject({ id });
export const createdApp = z.looseObject({
  id,
  start: z.looseObject({ state: z.string() }).optional(),
  buildId: z.string().optional(),
});

const port = z.looseObject({ port: z.number().int(), protocol: z.string() });
const envVar = z.looseObject({ name: z.string(), value: z.string().nullable(), secret: z.boolean() });
const volume = z.looseObject({ name: z.string(), mountPath: z.string(), sizeGb: z.number() });

export const appConfig = z.looseObject({
  image: z.string().optional(),
  ports: z.array(port),
  instances: z.looseObject({ min: z.number().int(), max: z.number().int() }),
  env: z.array(envVar),
  volumes: z.array(volume),
  hardware: z.record(z.string(), z.unknown()),
  placement: z.record(z.string(), z.unknown()),
  gridPriorities: z.record(z.string(), z.number()),
  command: z.array(z.string()).nullable().optional(),
});

export const appSource = z.looseObject({
  provider: z.string(),
  repository: z.string(),
  branch: z.string(),
  path: z.string().optional(),
});

export const app = z.looseObject({
  id,
  projectId: id,
  name: z.string(),
  config: appConfig,
  source: appSource.optional(),
  buildId: z.string().optional(),
  start: z.looseObject({ state: z.string() }).optional(),
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});

/** The app states the docs name; the service may show others (treated as in progress). */
export const knownAppStates = z.enum([
  "requested",
  "deferred",
  "building",
  "build_failed",
  "provisioning",
  "start_blocked",
  "running",
  "stopping",
  "stopped",
]);

export const appStatus = z.looseObject({
  state: z.string(),
  targetState: z.string(),
  nodes: z.array(z.looseObject({ id: z.string(), state: z.string() })),
  errors: z.array(z.looseObject({ code: z.string(), message: z.string(), at: timestamp })),
  endpoints: z.array(
    z.looseObject({ port: z.number().int(), protocol: z.string(), address: z.string().nullable() }),
  ),
});

/** A 202 acceptance: the spec shows no body, so whatever comes is ignored. */
export const accepted = z.unknown();

/** Seconds to wait before polling again; absent or null when the service gives no hint. */
const pollAfterSec = z.number().nullable().optional();

export const build = z.looseObject({
  id,
  appId: id.optional(),
  projectId: id.optional(),
  state: z.string(),
  failedStep: z.string().nullable().optional(),
  createdAt: timestamp.optional(),
  finishedAt: timestamp.nullable().optional(),
  pollAfterSec,
});

export const logExport = z.looseObject({ text: z.string(), lines: z.number().int(), truncated: z.boolean() });

export const usage = z.looseObject({
  appId: id,
  window: z.looseObject({ from: timestamp, to: timestamp }),
  instances: z.number(),
  runningSeconds: z.number(),
  cpuSeconds: z.number(),
  memoryMbAvg: z.number(),
  requests: z.number(),
  cost: decimal,
});

export const grid = z.looseObject({
  id,
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  createdAt: timestamp.optional(),
});

export const server = z.looseObject({
  address: id,
  orderId: z.string().optional(),
  gridIds: z.array(z.string()).default([]),
  state: z.string(),
  csp: z.string().optional(),
  region: z.string().optional(),
  zone: z.string().optional(),
  instanceType: z.string().optional(),
  hourlyCost: decimal.optional(),
  createdAt: timestamp.optional(),
});

export const order = z.looseObject({
  id,
  state: z.string(),
  csp: z.string().optional(),
  region: z.string().optional(),
  zone: z.string().optional(),
  instanceType: z.string().optional(),
  count: z.number().int().optional(),
  gridIds: z.array(z.string()).default([]),
  servers: z.array(z.string()).default([]),
  error: serviceError.nullable().optional(),
  pollAfterSec,
  createdAt: timestamp.optional(),
});

export const estimate = z.looseObject({
  estimate: z.looseObject({
    hourlyCost: decimal,
    perServerHourlyCost: decimal,
    currency: z.string(),
    count: z.number().int(),
    csp: z.string(),
    region: z.string(),
    zone: z.string(),
    instanceType: z.string(),
  }),
});

export const provisionResult = z.union([estimate, order]);

export const replaceResult = z.looseObject({
  replacedAddress: z.string().optional(),
  order: order.optional(),
});

export const region = z.looseObject({ id, name: z.string(), csps: z.array(z.string()) });
export const zone = z.looseObject({ id, regionId: z.string(), available: z.boolean() });
export const instanceType = z.looseObject({
  id,
  csp: z.string(),
  cpu: z.number(),
  memoryMb: z.number(),
  gpu: z.number(),
  hourlyPrice: decimal,
  currency: z.string(),
});

/**
 * One share of a project, app or grid: a user's role. `accountOwner` marks the owner, whose role no
 * share changes (the spec shows only `resourceType`; the rest is the simulator's reading).
 */
export const share = z.looseObject({
  userId: id,
  email: z.string().nullable().optional(),
  role: z.string(),
  accountOwner: z.boolean().optional(),
});

export const balance = z.looseObject({ balance: decimal, currency: z.string() });

export const costs = z.looseObject({
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  total: decimal,
  items: z.array(
    z.looseObject({ date: z.string(), resourceType: z.string(), resourceId: z.string(), amount: decimal }),
  ),
});

export const invoice = z.looseObject({
  number: z.string(),
  period: z.string(),
  amount: decimal,
  currency: z.string(),
  status: z.string(),
  issuedAt: timestamp.nullable(),
});

/** `{"error": {...}}`, the body of every error response. */
export const errorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    requestId: z.string().optional(),
    requiredScopes: z.array(z.string()).optional(),
    retryAfterSec: z.number().optional(),
    details: z.unknown().optional(),
  }),
});
