import type { Logger } from "../telemetry/logger.ts";
import type { WatchMetrics } from "../telemetry/metrics.ts";
import type { Source } from "./controller.ts";
import type { KubeClient } from "./kube-client.ts";
import type { KubeObject, ResourceType } from "./object.ts";
import { Reflector, type ReflectorOptions } from "./reflector.ts";
import { Store, type StoreHandlers } from "./store.ts";
import { StringPool } from "./string-pool.ts";

export interface InformerOptions
  extends Pick<
    ReflectorOptions,
    "labelSelector" | "pageSize" | "watchTimeoutSeconds" | "idleTimeoutMs" | "backoff" | "transform"
  > {
  client: KubeClient;
  type: ResourceType;
  logger: Logger;
  metrics: WatchMetrics;
  /** The namespaces to watch; all namespaces when empty or undefined. */
  namespaces?: readonly string[];
}

/** A cache of one resource type kept current from the API server, as controllers and the manager use it. */
export interface ObjectCache extends Source {
  readonly type: ResourceType;
  /** The object by `namespace/name`, as the cache holds it. */
  get(key: string): KubeObject | undefined;
  hasSynced(): boolean;
  start(): void;
  stop(): Promise<void>;
}

/** A cache of one resource type, kept current by one reflector per watched namespace. */
export class Informer implements ObjectCache {
  readonly type: ResourceType;
  readonly store: Store;
  readonly #reflectors: Reflector[];

  constructor(options: InformerOptions) {
    const { namespaces, ...shared } = options;
    this.type = options.type;
    this.store = new Store(options.logger);
    const scopes =
      namespaces === undefined || namespaces.length === 0 ? [undefined] : [...new Set(namespaces)];
    // One pool for the store its reflectors fill.
    const strings = new StringPool();
    this.#reflectors = scopes.map(
      (namespace) =>
        new Reflector({
          ...shared,
          store: this.store,
          strings,
          logger: options.logger.child({ resource: options.type.plural, namespace: namespace ?? "*" }),
          ...(namespace === undefined ? {} : { namespace }),
        }),
    );
  }

  on(handlers: StoreHandlers<KubeObject>): () => void {
    return this.store.on(handlers);
  }

  get(key: string): KubeObject | undefined {
    return this.store.get(key);
  }

  list(): KubeObject[] {
    return this.store.list();
  }

  hasSynced(): boolean {
    return this.#reflectors.every((r) => r.hasSynced());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.#reflectors.map((r) => r.waitForSync()));
  }

  start(): void {
    for (const reflector of this.#reflectors) reflector.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#reflectors.map((r) => r.stop()));
  }
}
