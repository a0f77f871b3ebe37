/** A value parsed from JSON. */
export type Json = unknown;

function isPlainObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    return (
      keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length &&
      keys.every((k) => deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/**
 * The JSON merge patch (RFC 7386) that turns `before` into `after`: changed fields set, removed
 * fields null, arrays replaced whole. Undefined when they are equal.
 */
export function mergePatch(before: Json, after: Json): Json | undefined {
  if (deepEqual(before, after)) return undefined;
  if (!isPlainObject(before) || !isPlainObject(after)) return after ?? null;
  const patch: Record<string, Json> = {};
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const change = mergePatch(before[key], value);
    if (change !== undefined) patch[key] = change;
  }
  for (const [key, value] of Object.entries(before)) {
    if (value !== undefined && after[key] === undefined) patch[key] = null;
  }
  return patch;
}
