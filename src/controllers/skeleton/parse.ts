import type { z } from "zod";
import type { KubeObject } from "../../runtime/index.ts";

/**
 * Parses the object. One that is being deleted but no longer parses (a CRD or operator version
 * skew) is parsed again without its invalid spec fields, so its deletion can still run, unless the
 * deletion policy itself is what fails: then nothing is guessed.
 */
export function parseForReconcile<R>(schema: z.ZodType<R>, object: KubeObject): z.ZodSafeParseResult<R> {
  let parsed = schema.safeParse(object);
  let candidate = object;
  for (
    let round = 0;
    !parsed.success && candidate.metadata.deletionTimestamp !== undefined && round < 10;
    round++
  ) {
    const invalid = parsed.error.issues.map((issue) => issue.path);
    if (!invalid.every((path) => path[0] === "spec" && path.length > 1 && path[1] !== "deletionPolicy"))
      break;
    candidate = {
      ...candidate,
      spec: withoutPaths(
        candidate.spec,
        invalid.map((path) => path.slice(1)),
      ),
    };
    parsed = schema.safeParse(candidate);
  }
  return parsed;
}

/** A copy of `value` without the fields at `paths` (only the top field of each path is removed). */
function withoutPaths(value: unknown, paths: PropertyKey[][]): Record<string, unknown> {
  const copy = { ...(value as Record<string, unknown>) };
  for (const [field] of paths) if (field !== undefined) delete copy[String(field)];
  return copy;
}

/** The object parsed again after a write; the resource as it was when it no longer parses. */
export function parseAgain<R>(schema: z.ZodType<R>, object: KubeObject, resource: R): R {
  const parsed = parseForReconcile(schema, object);
  return parsed.success ? parsed.data : resource;
}
