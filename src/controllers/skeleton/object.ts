import type { z } from "zod";
import type { Intent } from "../../api/intents.ts";
import { annotations, finalizer } from "../../api/meta.ts";
import {
  type EventRecorder,
  ensureFinalizer,
  type Json,
  type KubeClient,
  type KubeObject,
  objectKey,
  patchAnnotations,
  patchStatus,
  type ResourceType,
  removeFinalizer,
} from "../../runtime/index.ts";
import { type OwnedField, ownedValue, withRestoredIdentity } from "./owned.ts";
import type { Resource } from "./resource.ts";

// The Kubernetes object one reconcile works on: parsed (leniently while it is deleted), written
// before the final status (the finalizer, Pending intents, the release), and parsed again after
// each write.

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

/**
 * The object parsed again after a write, with what a restore put back into its status kept (the
 * status write comes last); the resource as it was when it no longer parses.
 */
function parseAgain<R extends Resource>(kind: ObjectWrites<R>["kind"], object: KubeObject, resource: R): R {
  const parsed = parseForReconcile(kind.schema, object);
  return parsed.success ? withRestoredIdentity(parsed.data, kind.externalId) : resource;
}

/** The object as one reconcile has written it so far, and the resource parsed from it. */
export interface Written<R extends Resource> {
  object: KubeObject;
  resource: R;
}

/** What the release leaves to a person (a Warning event), or that Orphan leaves the object at the service. */
export interface Release {
  warning?: { reason: string; message: string } | undefined;
  orphan?: boolean;
  /** Why an orphan release calls nothing, when not its deletionPolicy (see uninstall.ts). */
  because?: string | undefined;
}

/** Where one reconcile writes its object, made once per reconcile. */
export interface ObjectWrites<R extends Resource> {
  kube: KubeClient;
  recorder: EventRecorder;
  kind: {
    type: ResourceType;
    schema: z.ZodType<R>;
    externalId?: string | undefined;
    owns?: readonly OwnedField[] | undefined;
  };
  /** Told of each status write before the final one (its watch event is no news). */
  onWrite?: ((before: KubeObject, written: KubeObject) => void) | undefined;
}

/** Adds berth's finalizer: the object as written, which later actions start from. */
export async function addFinalizer<R extends Resource>(
  writes: ObjectWrites<R>,
  at: Written<R>,
): Promise<Written<R>> {
  const object = await ensureFinalizer(writes.kube, writes.kind.type, at.object, finalizer);
  return { object, resource: parseAgain(writes.kind, object, at.resource) };
}

/**
 * Writes status.intents before a call, so a crash or a lost answer during it is noticed; and keeps
 * them in the berth.dev/owned annotation too, so a restore from a backup taken meanwhile does.
 */
export async function recordIntents<R extends Resource>(
  writes: ObjectWrites<R>,
  at: Written<R>,
  intents: Intent[],
): Promise<Written<R>> {
  const { kube, kind } = writes;
  const status = { ...(at.object.status as Record<string, unknown> | undefined), intents } as Json;
  const owned = ownedValue(status, kind.owns ?? [], objectKey(at.object)) ?? null;
  const annotated = await patchAnnotations(kube, kind.type, at.object, { [annotations.owned]: owned });
  if (annotated !== undefined) writes.onWrite?.(at.object, annotated);
  const before = annotated ?? at.object;
  const written = await patchStatus(kube, kind.type, before, status);
  if (written.written) writes.onWrite?.(before, written.object);
  return { object: written.object, resource: parseAgain(kind, written.object, at.resource) };
}

/**
 * Removes berth's finalizer once nothing is left at the service (or Orphan keeps it there), with an
 * event for what the release leaves to a person.
 */
export async function releaseFinalizer<R extends Resource>(
  writes: ObjectWrites<R>,
  object: KubeObject,
  release: Release,
): Promise<void> {
  if (release.warning !== undefined)
    writes.recorder.record(object, "Warning", release.warning.reason, release.warning.message);
  await removeFinalizer(writes.kube, writes.kind.type, object, finalizer);
  if (release.orphan === true) {
    const what = (writes.kind.externalId ?? "").replace(/Id$/, "") || "object";
    const note = `left the ${what} at the service (${release.because ?? "deletionPolicy: Orphan"})`;
    writes.recorder.record(object, "Normal", "Orphaned", note, "removeFinalizer");
  }
}
