import type { IncomingHttpHeaders } from "node:http";
import type { BudgetHint } from "./limiter.ts";

/** What the client reads from response headers. */
export interface ResponseFacts {
  requestId: string | undefined;
  replayed: boolean;
  retryAfterSec: number | undefined;
  budget: BudgetHint | undefined;
}

export function readHeaders(headers: IncomingHttpHeaders, nowMs: number): ResponseFacts {
  const remaining = number(header(headers, "x-ratelimit-remaining"));
  const reset = number(header(headers, "x-ratelimit-reset"));
  return {
    requestId: header(headers, "x-request-id"),
    replayed: header(headers, "idempotent-replayed")?.toLowerCase() === "true",
    retryAfterSec: retryAfter(header(headers, "retry-after"), nowMs),
    budget:
      remaining === undefined || reset === undefined
        ? undefined
        : { limit: number(header(headers, "x-ratelimit-limit")), remaining, resetAtMs: reset * 1000 },
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function number(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** `Retry-After` is either seconds or an HTTP date. */
function retryAfter(text: string | undefined, nowMs: number): number | undefined {
  const seconds = number(text);
  if (seconds !== undefined || text === undefined) return seconds;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}
