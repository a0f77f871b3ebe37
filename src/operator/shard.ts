import {
  type KubeObject,
  type LabelSelector,
  type MapToKeys,
  type ObjectCache,
  Outcome,
  parseLabelSelector,
  type Reconciler,
  type Source,
} from "../runtime/index.ts";
import { leaseName as defaultLease } from "./permissions.ts";

/** The label that assigns a resource to a shard; resources without it belong to the default shard. */
export const shardLabel = "berth.dev/shard";
/** The selector of the default shard's operator once shards exist. */
export const defaultShardSelector = `!${shardLabel}`;

/**
 * The resources this operator reconciles. Its informers still cache every berth object, so a
 * reference to an object in another shard (an App's Project, a Secret) resolves as before; only
 * the work (reconciles, hosting calls, status writes) is divided.
 */
export class Shard {
  readonly selector: LabelSelector;

  constructor(selectorText: string) {
    this.selector = parseLabelSelector(selectorText);
  }

  get everything(): boolean {
    return this.selector.text === "";
  }

  owns(object: KubeObject): boolean {
    return this.selector.matches(object.metadata.labels);
  }

  /**
   * The leader election Lease: `berth-operator` for an unsharded operator and the default shard,
   * so adding shards never changes the running operator's lease; otherwise one per selector,
   * e.g. `berth-operator-berth-dev-shard-in-shard1` for `berth.dev/shard in (shard1)`.
   */
  get leaseName(): string {
    const text = this.selector.text;
    if (text === "" || text.replaceAll(" ", "") === defaultShardSelector) return defaultLease;
    const slug = text
      .toLowerCase()
      .replaceAll("!=", "-not-")
      .replaceAll("!", "not-")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
    return `${defaultLease}-${slug}`.slice(0, 253).replace(/-+$/, "");
  }

  /** The primary informer as the controller sees it: only this shard's objects enqueue work. */
  source(informer: ObjectCache): Source {
    if (this.everything) return informer;
    return {
      list: () => informer.list().filter((object) => this.owns(object)),
      waitForSync: () => informer.waitForSync(),
      on: (handlers) =>
        informer.on({
          add: (object) => {
            if (this.owns(object)) handlers.add?.(object);
          },
          update: (old, object) => {
            if (this.owns(object)) handlers.update?.(old, object);
          },
          delete: (object) => {
            if (this.owns(object)) handlers.delete?.(object);
          },
        }),
    };
  }

  /** A related object's change enqueues only the primaries of this shard. */
  keys(map: MapToKeys, primaries: ObjectCache): MapToKeys {
    if (this.everything) return map;
    return (object) =>
      map(object).filter((key) => {
        const primary = primaries.get(key);
        return primary !== undefined && this.owns(primary);
      });
  }

  /** Work queued before an object moved to another shard is dropped, never done twice. */
  reconciler(reconcile: Reconciler, primaries: ObjectCache): Reconciler {
    if (this.everything) return reconcile;
    return (request, context) => {
      const object = primaries.get(request.key);
      return object !== undefined && !this.owns(object)
        ? Promise.resolve(Outcome.done())
        : reconcile(request, context);
    };
  }
}
