import { z } from "zod";
import { faultSchema } from "../faults.ts";
import type { Method, Reply } from "../http/route.ts";
import { money, newKeySchema, newOAuthTokenSchema, newUserSchema } from "../options.ts";
import { profileInputSchema } from "../profile.ts";
import { timingsSchema } from "../timings.ts";
import { failureSchema, type SimControl, shareSchema } from "./sim-control.ts";

export interface ControlContext<B = unknown> {
  sim: SimControl;
  body: B;
  query: Record<string, string | string[]>;
  param(name: string): string;
}

interface ControlSpec<S extends z.ZodType> {
  method: Method;
  path: string;
  /** Validates the body before `handle` sees it; absent means no body. */
  body?: S;
  handle(context: ControlContext<z.output<S>>): Reply;
}

export type ControlRoute = ControlSpec<z.ZodType>;

function route<S extends z.ZodType = z.ZodUndefined>(spec: ControlSpec<S>): ControlRoute {
  return spec as unknown as ControlRoute;
}

const noContent: Reply = { status: 204 };

const clockBody = z.union([
  z.object({ advanceSec: z.number().min(0) }).strict(),
  z.object({ set: z.iso.datetime({ offset: true }) }).strict(),
]);

/** The /_sim control API: paths relative to /_sim. */
export const controlRoutes: readonly ControlRoute[] = [
  route({
    method: "POST",
    path: "/users",
    body: newUserSchema,
    handle: (c) => created(c.sim.addUser(c.body)),
  }),
  route({ method: "POST", path: "/keys", body: newKeySchema, handle: (c) => created(c.sim.addKey(c.body)) }),
  route({
    method: "POST",
    path: "/oauth-tokens",
    body: newOAuthTokenSchema,
    handle: (c) => created(c.sim.addOAuthToken(c.body)),
  }),
  route({
    method: "DELETE",
    path: "/keys/{keyId}",
    handle: (c) => {
      c.sim.revokeKey(c.param("keyId"));
      return noContent;
    },
  }),
  route({
    method: "PUT",
    path: "/users/{userId}/balance",
    body: z.object({ balance: money }).strict(),
    handle: (c) => ok({ balance: c.sim.setBalance(c.param("userId"), c.body.balance) }),
  }),
  route({
    method: "PUT",
    path: "/users/{userId}/frozen",
    body: z.object({ frozen: z.boolean() }).strict(),
    handle: (c) => {
      c.sim.freeze(c.param("userId"), c.body.frozen);
      return noContent;
    },
  }),
  route({
    method: "POST",
    path: "/shares",
    body: shareSchema,
    handle: (c) => {
      c.sim.share(c.body);
      return noContent;
    },
  }),
  route({
    method: "POST",
    path: "/faults",
    body: faultSchema,
    handle: (c) => created({ id: c.sim.injectFault(c.body) }),
  }),
  route({
    method: "GET",
    path: "/faults",
    handle: (c) => ok({ items: c.sim.faults(), spent: c.sim.spentFaults() }),
  }),
  route({
    method: "DELETE",
    path: "/faults",
    handle: (c) => {
      c.sim.clearFaults();
      return noContent;
    },
  }),
  route({
    method: "DELETE",
    path: "/faults/{faultId}",
    handle: (c) => {
      c.sim.clearFaults(c.param("faultId"));
      return noContent;
    },
  }),
  route({ method: "GET", path: "/timings", handle: (c) => ok(c.sim.timings()) }),
  route({
    method: "PUT",
    path: "/timings",
    body: timingsSchema.partial(),
    handle: (c) => ok(c.sim.setTimings(c.body)),
  }),
  route({ method: "GET", path: "/profile", handle: (c) => ok(c.sim.profile()) }),
  route({
    method: "PUT",
    path: "/profile",
    body: profileInputSchema,
    handle: (c) => ok(c.sim.setProfile(c.body)),
  }),
  route({ method: "GET", path: "/stats", handle: (c) => ok(c.sim.stats()) }),
  route({
    method: "POST",
    path: "/failures",
    body: failureSchema,
    handle: (c) => {
      c.sim.failNext(c.body);
      return noContent;
    },
  }),
  route({
    method: "PUT",
    path: "/capacity",
    body: z.object({ zone: z.string().min(1), available: z.boolean() }).strict(),
    handle: (c) => {
      const { zone, available } = c.body;
      c.sim.setCapacity(zone, available);
      return noContent;
    },
  }),
  route({
    method: "POST",
    path: "/servers/{address}/fail",
    handle: (c) => {
      c.sim.failServer(c.param("address"));
      return noContent;
    },
  }),
  route({
    method: "PUT",
    path: "/servers/{address}/price",
    body: z.object({ hourlyPrice: money }).strict(),
    handle: (c) => ok({ hourlyPrice: c.sim.repriceServer(c.param("address"), c.body.hourlyPrice) }),
  }),
  route({ method: "GET", path: "/clock", handle: (c) => ok(c.sim.clock()) }),
  route({
    method: "POST",
    path: "/clock",
    body: clockBody,
    handle: (c) => {
      const body = c.body;
      if ("set" in body) c.sim.setClock(body.set);
      else c.sim.advanceClock(body.advanceSec);
      return ok(c.sim.clock());
    },
  }),
  route({
    method: "GET",
    path: "/requests",
    handle: (c) => {
      const operation = c.query.operation;
      return ok({ items: c.sim.requests(typeof operation === "string" ? { operation } : {}) });
    },
  }),
  route({
    method: "POST",
    path: "/reset",
    handle: (c) => {
      c.sim.reset();
      return noContent;
    },
  }),
];

function ok(body: unknown): Reply {
  return { status: 200, body };
}

function created(body: unknown): Reply {
  return { status: 201, body };
}
