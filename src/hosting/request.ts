import { type CallKind, fillPath, type Route } from "./routes.ts";
import type { HttpRequest } from "./transport.ts";

export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** What a caller passes for one call of a route. */
export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  idempotencyKey?: string;
}

/** The caller's settings a request is built from. */
export interface RequestSettings {
  apiKey: string;
  userAgent: string;
  timeoutsMs: Record<CallKind, number>;
}

/** The HTTP request of a call: bearer auth, JSON body for POST/PATCH, URL-encoded path values. */
export function buildRequest(
  deps: RequestSettings,
  route: Route,
  input: CallInput,
  signal: AbortSignal | undefined,
): HttpRequest {
  const headers: Record<string, string> = {
    authorization: `Bearer ${deps.apiKey}`,
    accept: "application/json",
    "user-agent": deps.userAgent,
  };
  let body: string | undefined;
  if (route.method === "POST" || route.method === "PATCH") {
    headers["content-type"] = "application/json";
    body = JSON.stringify(input.body ?? {});
  }
  if (input.idempotencyKey !== undefined) headers["idempotency-key"] = input.idempotencyKey;
  return {
    method: route.method,
    path: fillPath(route.path, input.params ?? {}) + queryString(input.query),
    headers,
    body,
    timeoutMs: deps.timeoutsMs[route.callKind],
    signal,
  };
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(name, item);
    else search.append(name, String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}
