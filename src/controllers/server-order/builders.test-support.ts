import type { Me, Order, Server } from "../../hosting/index.ts";
import type { Catalog } from "./catalog.ts";
import type { OrderObserved } from "./memory.ts";

// Builders for the ServerOrder controller's unit tests (not shipped behaviour).

export const now = new Date("2030-01-01T00:10:00Z");

export const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};

export const catalog: Catalog = {
  regions: [{ id: "eu-central", name: "Frankfurt", csps: ["native", "aws"] }],
  zones: [
    { id: "eu-central-1a", regionId: "eu-central", available: true },
    { id: "eu-central-1b", regionId: "eu-central", available: true },
  ],
  instanceTypes: [
    {
      id: "native.small",
      csp: "native",
      cpu: 2,
      memoryMb: 4096,
      gpu: 0,
      hourlyPrice: "0.0520",
      currency: "USD",
    },
    { id: "aws.small", csp: "aws", cpu: 2, memoryMb: 4096, gpu: 0, hourlyPrice: "0.0572", currency: "USD" },
  ],
};

export const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

/** A delivered order of two servers, ord_1. */
export function order(overrides: Partial<Order> = {}): Order {
  return {
    id: "ord_1",
    state: "completed",
    ...placement,
    count: 2,
    gridIds: [],
    servers: ["0xa", "0xb"],
    error: null,
    pollAfterSec: null,
    createdAt: "2030-01-01T00:10:05Z",
    ...overrides,
  };
}

/** A server of ord_1. */
export function server(address: string, state = "running"): Server {
  return {
    address,
    orderId: "ord_1",
    gridIds: [],
    state,
    ...placement,
    hourlyCost: "0.0520",
    createdAt: "2030-01-01T00:10:05Z",
  };
}

/** What observe found: a key that may order, nothing read yet. */
export function observed(overrides: Partial<OrderObserved> = {}): OrderObserved {
  return {
    problem: undefined,
    me: me(["pools:write", "compute:spend"]),
    grids: { ok: true, gridIds: [] },
    catalog,
    estimate: undefined,
    order: undefined,
    gone: false,
    servers: undefined,
    candidates: undefined,
    refused: undefined,
    requestId: "req_1",
    ...overrides,
  };
}
