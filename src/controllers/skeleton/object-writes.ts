import type { z } from "zod";
import type { Intent } from "../../api/intents.ts";
import { finalizer } from "../../api/meta.ts";
import {
  type EventRecorder,
  ensureFinalizer,
  type Json,
  type KubeClient,
  type KubeObject,
  patchStatus,
  type ResourceType,
  removeFinalizer,
} from "../../runtime/index.ts";
import { parseAgain } from "./parse.ts";

/** The object as one reconcile has written it so far, and the resource parsed from it. */
export interface Written<R> {
  object: KubeObject;
  resource: R;
}

/** What the release leaves to a person (a Warning event), or that Orphan leaves the object at the service. */
export interface Release {
  warning?: { reason: string; message: string } | undefined;
  orphan?: boolean;
}

/** The kind whose object is written. */
export interface WrittenKind<R> {
  type: ResourceType;
  schema: z.ZodType<R>;
  externalId?: string | undefined;
}

/**
 * Every write one reconcile makes to its object before the final status write, made once per
 * reconcile: the finalizer added, Pending intents recorded, the finalizer released. A write
 * leaves the object as written and the resource parsed again from it.
 */
export class ObjectWrites<R> {
  readonly #kube: KubeClient;
  readonly #recorder: EventRecorder;
  readonly #kind: WrittenKind<R>;
  readonly #onWrite: ((before: KubeObject, written: KubeObject) => void) | undefined;

  constructor(
    deps: { kube: KubeClient; recorder: EventRecorder },
    kind: WrittenKind<R>,
    /** Told of each status write (its watch event is no news). */
    onWrite?: (before: KubeObject, written: KubeObject) => void,
  ) {
    this.#kube = deps.kube;
    this.#recorder = deps.recorder;
    this.#kind = kind;
    this.#onWrite = onWrite;
  }

  /** Adds berth's finalizer: the object as written, which later actions start from. */
  async addFinalizer(at: Written<R>): Promise<Written<R>> {
    const object = await ensureFinalizer(this.#kube, this.#kind.type, at.object, finalizer);
    return { object, resource: parseAgain(this.#kind.schema, object, at.resource) };
  }

  /** Writes status.intents before a call, so a crash or a lost answer during it is noticed. */
  async recordIntents(at: Written<R>, intents: Intent[]): Promise<Written<R>> {
    const status = { ...(at.object.status as Record<string, unknown> | undefined), intents } as Json;
    const written = await patchStatus(this.#kube, this.#kind.type, at.object, status);
    if (written.written) this.#onWrite?.(at.object, written.object);
    return { object: written.object, resource: parseAgain(this.#kind.schema, written.object, at.resource) };
  }

  /**
   * Removes berth's finalizer once nothing is left at the service (or Orphan keeps it there), with an
   * event for what the release leaves to a person.
   */
  async releaseFinalizer(object: KubeObject, release: Release): Promise<void> {
    if (release.warning !== undefined)
      this.#recorder.record(object, "Warning", release.warning.reason, release.warning.message);
    await removeFinalizer(this.#kube, this.#kind.type, object, finalizer);
    if (release.orphan === true) {
      const what = (this.#kind.externalId ?? "").replace(/Id$/, "") || "object";
      const note = `left the ${what} at the service (deletionPolicy: Orphan)`;
      this.#recorder.record(object, "Normal", "Orphaned", note, "removeFinalizer");
    }
  }
}
