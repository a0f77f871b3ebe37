import { createHash } from "node:crypto";

/** The service's bound on `Idempotency-Key`. */
export const maxIdempotencyKeyLength = 255;

const plainPart = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * A deterministic Idempotency-Key: the same owner, operation and arguments always give the same key,
 * so a create repeated after a crash replays instead of creating twice; different arguments (a dry
 * run and the real order, an edited spec) give a different key. Shape:
 * `<operation>.<owner>.<sha256 of the canonical arguments, 40 hex>`, no whitespace, at most 255 chars.
 */
export function idempotencyKey(ownerUid: string, operation: string, args: unknown): string {
  if (ownerUid === "") throw new TypeError("idempotencyKey: ownerUid must not be empty");
  if (operation === "") throw new TypeError("idempotencyKey: operation must not be empty");
  const digest = sha256Hex(canonicalJson(args)).slice(0, 40);
  return `${keyPart(operation)}.${keyPart(ownerUid)}.${digest}`;
}

/** Owner UIDs and operation names are kept readable when plain, hashed otherwise (spaces, length). */
function keyPart(value: string): string {
  return plainPart.test(value) ? value : `h${sha256Hex(value).slice(0, 24)}`;
}

/**
 * JSON with object keys sorted at every depth, so equal arguments give equal text whatever order
 * their keys were written in. Undefined properties are dropped as JSON does; array order is kept.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, "args"));
}

function sortKeys(value: unknown, path: string): unknown {
  if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
    throw new TypeError(`idempotencyKey: ${path} is a ${typeof value}, which has no JSON form`);
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`idempotencyKey: ${path} is ${value}, which has no JSON form`);
  }
  if (Array.isArray(value)) return value.map((item, i) => sortKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = sortKeys(item, `${path}.${key}`);
  }
  return sorted;
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
