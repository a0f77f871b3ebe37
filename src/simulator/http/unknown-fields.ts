/**
 * Harsh profile: every record in an answer carries fields no client knows (a real service adds
 * fields without a new version). A record is the answer itself, and any object in it with an `id`
 * or an `address`.
 */
export function withUnknownFields(body: unknown, revision: number): unknown {
  return mark(body, revision, true);
}

function mark(value: unknown, revision: number, top: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => mark(item, revision, false));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = mark(field, revision, false);
  const isRecord = top || "id" in out || "address" in out;
  if (isRecord && !("items" in out))
    Object.assign(out, { revision, tags: [], _sim: { note: "unknown to clients" } });
  return out;
}
