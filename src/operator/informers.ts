import { Informer, type KubeClient, type ObjectCache, type ResourceType } from "../runtime/index.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { WatchMetrics } from "../telemetry/metrics.ts";

export interface InformerSetOptions {
  client: KubeClient;
  logger: Logger;
  metrics: WatchMetrics;
  /** Namespaces to watch (all when empty). */
  namespaces: readonly string[];
  /** Each new informer is handed here (the manager runs it). */
  register(informer: ObjectCache): void;
}

function typeKey(type: ResourceType): string {
  return `${type.group}/${type.version}/${type.plural}`;
}

/**
 * One shared cache per resource type: an Informer made on first request, or one given with `use`
 * (the Secret cache); none may be added once started.
 */
export class InformerSet {
  readonly #options: InformerSetOptions;
  readonly #informers = new Map<string, ObjectCache>();
  #sealed = false;

  constructor(options: InformerSetOptions) {
    this.#options = options;
  }

  get(type: ResourceType): ObjectCache {
    const existing = this.#informers.get(typeKey(type));
    if (existing !== undefined) return existing;
    const { client, logger, metrics } = this.#options;
    // A cluster-scoped type (Namespaces) is listed whole, not per watched namespace.
    const namespaces = type.namespaced === false ? undefined : this.#options.namespaces;
    return this.use(new Informer({ client, type, logger, metrics, ...(namespaces ? { namespaces } : {}) }));
  }

  /** Serves `cache` for its type (made by the caller: a cache that keeps less than an Informer). */
  use<C extends ObjectCache>(cache: C): C {
    const key = typeKey(cache.type);
    if (this.#sealed)
      throw new Error(`informer for ${cache.type.plural} requested after the operator started`);
    if (this.#informers.has(key)) throw new Error(`a cache for ${cache.type.plural} exists already`);
    this.#informers.set(key, cache);
    this.#options.register(cache);
    return cache;
  }

  /** No more informers: the manager has started them all. */
  seal(): void {
    this.#sealed = true;
  }

  all(): ObjectCache[] {
    return [...this.#informers.values()];
  }
}
