import { z } from "zod";
import { validationFailed } from "../errors.ts";
import { fingerprint } from "../idempotency.ts";

/** What a cursor belongs to: the list (operation and path values) and the credential that paged it. */
export interface CursorOwner {
  operation: string;
  params: ReadonlyMap<string, string>;
  keyId: string;
}

const boundSchema = z.object({ c: z.string(), l: z.string(), k: z.string() }).strict();

function digest(value: unknown): string {
  return fingerprint(value).slice(0, 16);
}

function listDigest(owner: CursorOwner): string {
  return digest({ operation: owner.operation, params: Object.fromEntries(owner.params) });
}

/** Wraps a list's own cursor so it is accepted only by the same list and credential. */
export function bindCursor(cursor: string, owner: CursorOwner): string {
  const bound = { c: cursor, l: listDigest(owner), k: digest(owner.keyId) };
  return Buffer.from(JSON.stringify(bound)).toString("base64url");
}

/** The list's own cursor inside a bound one; a cursor of another list or credential is a 400. */
export function unbindCursor(cursor: string, owner: CursorOwner): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const parsed = boundSchema.safeParse(decoded);
  const refuse = (message: string) => validationFailed([{ path: "query.cursor", message }]);
  if (!parsed.success) throw refuse("is not a cursor this list returned; start again without it");
  if (parsed.data.l !== listDigest(owner)) {
    throw refuse("was returned by another list; page each list with its own cursors");
  }
  if (parsed.data.k !== digest(owner.keyId)) {
    throw refuse("was returned to another credential; page with the key that started the listing");
  }
  return parsed.data.c;
}

/** The reply with its `nextCursor` (when it has one) bound to the owner. */
export function withBoundCursor<R extends { body?: unknown }>(reply: R, owner: CursorOwner): R {
  const body = reply.body;
  if (body === null || typeof body !== "object" || !("nextCursor" in body)) return reply;
  const next = (body as { nextCursor: unknown }).nextCursor;
  if (typeof next !== "string") return reply;
  return { ...reply, body: { ...body, nextCursor: bindCursor(next, owner) } };
}
