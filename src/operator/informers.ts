import type { Informer, KubeClient, ResourceType } from "../runtime/index.ts";
import { Informer as InformerClass } from "../runtime/index.ts";
import type { Logger } from "../telemetry/logger.ts";
import type { WatchMetrics } from "../telemetry/metrics.ts";

export interface InformerSetOptions {
  client: KubeClient;
  logger: Logger;
  metrics: WatchMetrics;
  /** Namespaces to watch (all when empty). */
  namespaces: readonly string[];
  /** Extra namespaces for Secrets: the default credentials Secret may live outside the watched ones. */
  secretNamespaces: readonly string[];
  /** Each new informer is handed here (the manager runs it). */
  register(informer: Informer): void;
}

/** One shared informer per resource type, made on first request; none may be added once started. */
export class InformerSet {
  readonly #options: InformerSetOptions;
  readonly #informers = new Map<string, Informer>();
  #sealed = false;

  constructor(options: InformerSetOptions) {
    this.#options = options;
  }

  get(type: ResourceType): Informer {
    const key = `${type.group}/${type.version}/${type.plural}`;
    const existing = this.#informers.get(key);
    if (existing !== undefined) return existing;
    if (this.#sealed) throw new Error(`informer for ${type.plural} requested after the operator started`);
    const { client, logger, metrics, namespaces, secretNamespaces } = this.#options;
    const isSecret = type.group === "" && type.plural === "secrets";
    const scope = namespaces.length === 0 ? [] : isSecret ? [...namespaces, ...secretNamespaces] : namespaces;
    const informer = new InformerClass({ client, type, logger, metrics, namespaces: scope });
    this.#informers.set(key, informer);
    this.#options.register(informer);
    return informer;
  }

  /** No more informers: the manager has started them all. */
  seal(): void {
    this.#sealed = true;
  }

  all(): Informer[] {
    return [...this.#informers.values()];
  }
}
