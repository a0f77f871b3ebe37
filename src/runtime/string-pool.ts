import type { KubeObject } from "./object.ts";

/** Longer strings are left alone: few repeat, and the pool's bound is counted in entries. */
const maxLength = 512;

/** Per object, unique by nature: pooling them would only push the repeated ones out. */
const uniqueMetadata = new Set(["name", "generateName", "uid", "resourceVersion", "selfLink"]);

/**
 * One copy of each repeated string in a cache. JSON.parse gives every value its own copy (V8
 * shares only the shortest), so ten thousand cached objects hold ten thousand copies of the same
 * apiVersion, image, condition message and second-granular timestamp. The pool is bounded: once
 * `capacity` strings are in it, it starts afresh (what was shared stays shared).
 */
export class StringPool {
  readonly #strings = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity = 2048) {
    this.#capacity = capacity;
  }

  /** Strings pooled now. */
  get size(): number {
    return this.#strings.size;
  }

  /** The pooled copy of `value` (it becomes the pooled one when there is none). */
  intern(value: string): string {
    if (value.length > maxLength) return value;
    const pooled = this.#strings.get(value);
    if (pooled !== undefined) return pooled;
    if (this.#strings.size >= this.#capacity) this.#strings.clear();
    this.#strings.set(value, value);
    return value;
  }

  /** Replaces, in place, the object's string values by their pooled copies (its identity fields aside). */
  internObject(object: KubeObject): KubeObject {
    for (const field of Object.keys(object)) {
      if (field === "metadata") this.#internMetadata(object.metadata);
      else object[field] = this.#internValue(object[field]);
    }
    return object;
  }

  #internMetadata(metadata: Record<string, unknown>): void {
    for (const field of Object.keys(metadata)) {
      if (!uniqueMetadata.has(field)) metadata[field] = this.#internValue(metadata[field]);
    }
  }

  #internValue(value: unknown): unknown {
    if (typeof value === "string") return this.intern(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.#internValue(value[i]);
    } else if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      for (const field of Object.keys(record)) record[field] = this.#internValue(record[field]);
    }
    return value;
  }
}
