import type { z } from "zod";
import type { Principal } from "../auth.ts";
import type { World } from "../store/world.ts";

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface Reply {
  status: number;
  body?: unknown;
  /** A non-JSON body (the invoice PDF). */
  binary?: { contentType: string; data: Buffer };
}

export interface RouteContext<B, Q> {
  world: World;
  principal: Principal;
  body: B;
  query: Q;
  /** The simulated time of this request. */
  now: number;
  /** A path value, already URL-decoded and validated. */
  param(name: string): string;
}

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType> {
  /** Names the operation in faults, logs and the request log (like an OpenAPI operationId). */
  operation: string;
  method: Method;
  /** Relative to /v1, with `{name}` path values. */
  path: string;
  scopes: readonly string[];
  /** The JSON body; without it the operation takes no body (empty or `{}`). */
  body?: B;
  query?: Q;
  /** Honours Idempotency-Key. */
  idempotent?: boolean;
  /** A create or order: it takes `createMin`–`createMax` seconds before it acts and answers. */
  takesTime?: (body: z.output<B>) => boolean;
  handle(context: RouteContext<z.output<B>, z.output<Q>>): Reply;
}

/** A route with its body and query types erased, for the routes table. */
export type Route = RouteSpec<z.ZodType, z.ZodType>;

export function defineRoute<
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
>(spec: RouteSpec<B, Q>): Route {
  return spec as unknown as Route;
}
