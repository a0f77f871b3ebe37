import { KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import { apiVersion } from "../../src/api/meta.ts";
import { isKubeError, KubeClient, patchTypes } from "../../src/runtime/index.ts";

export const kinds = ["Project", "App", "Grid", "ServerOrder"] as const;
export type Kind = (typeof kinds)[number];

const plurals: Record<Kind, string> = {
  Project: "projects",
  App: "apps",
  Grid: "grids",
  ServerOrder: "serverorders",
};

const conditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  observedGeneration: z.number().optional(),
});
export type Condition = z.infer<typeof conditionSchema>;

const resourceSchema = z.object({
  metadata: z.object({
    name: z.string(),
    namespace: z.string(),
    uid: z.string(),
    generation: z.number().optional(),
    deletionTimestamp: z.string().optional(),
    finalizers: z.array(z.string()).optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.record(z.string(), z.unknown()).optional(),
  status: z
    .looseObject({
      conditions: z.array(conditionSchema).optional(),
      projectId: z.string().optional(),
      appId: z.string().optional(),
      gridId: z.string().optional(),
      orderId: z.string().optional(),
      phase: z.string().optional(),
      lastHandledReplaceServer: z.string().optional(),
      servers: z.array(z.looseObject({ address: z.string(), state: z.string().optional() })).optional(),
    })
    .optional(),
});
export type Resource = z.infer<typeof resourceSchema>;

/** What an export keeps of a resource (no uid, no resourceVersion, no status). */
export interface Manifest {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  spec: Record<string, unknown>;
}

/** The berth resources and Secrets of the chaos namespaces, through the runtime's Kubernetes client. */
export class Cluster {
  readonly #config = new KubeConfig();
  readonly #kubeconfigPath: string;
  readonly #client: KubeClient;

  constructor(kubeconfigPath: string) {
    this.#kubeconfigPath = kubeconfigPath;
    this.#config.loadFromFile(kubeconfigPath);
    this.#client = new KubeClient(this.#config);
  }

  get config(): KubeConfig {
    return this.#config;
  }

  /** After a control-plane restart: the apiserver mints new credentials into the same file. */
  reload(): void {
    this.#config.loadFromFile(this.#kubeconfigPath);
  }

  async createNamespace(name: string): Promise<void> {
    await this.#client.call("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
  }

  /**
   * Creates the Secret, or merge-patches its data when it exists: a PUT would drop the finalizers
   * berth keeps on credentials Secrets in use (and so complete a pending deletion).
   */
  async putSecret(namespace: string, name: string, data: Record<string, string>): Promise<void> {
    const base = `/api/v1/namespaces/${namespace}/secrets`;
    try {
      await this.#client.call("POST", base, { body: { metadata: { name, namespace }, stringData: data } });
    } catch (error) {
      if (!isKubeError(error, "conflict")) throw error;
      await this.#client.call("PATCH", `${base}/${name}`, {
        body: { stringData: data },
        contentType: patchTypes.merge,
      });
    }
  }

  /** Clears a Secret's finalizers (what an admin does to force a deletion through). */
  async clearSecretFinalizers(namespace: string, name: string): Promise<void> {
    await ignoreNotFound(
      this.#client.call("PATCH", `/api/v1/namespaces/${namespace}/secrets/${name}`, {
        body: { metadata: { finalizers: null } },
        contentType: patchTypes.merge,
      }),
    );
  }

  /** Whether the Secret exists, and whether it is being deleted (held by a finalizer). */
  async secretState(namespace: string, name: string): Promise<"absent" | "present" | "terminating"> {
    try {
      const body = await this.#client.call("GET", `/api/v1/namespaces/${namespace}/secrets/${name}`);
      const meta = z.object({ metadata: z.object({ deletionTimestamp: z.string().optional() }) }).parse(body);
      return meta.metadata.deletionTimestamp === undefined ? "present" : "terminating";
    } catch (error) {
      if (isKubeError(error, "not_found")) return "absent";
      throw error;
    }
  }

  async deleteSecret(namespace: string, name: string): Promise<void> {
    await ignoreNotFound(this.#client.call("DELETE", `/api/v1/namespaces/${namespace}/secrets/${name}`));
  }

  /** A namespace's SpendLimit, written as a platform admin would. */
  async createSpendLimit(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
    const body = { apiVersion, kind: "SpendLimit", metadata: { name, namespace }, spec };
    await this.#client.call("POST", `/apis/${apiVersion}/namespaces/${namespace}/spendlimits`, { body });
  }

  /** A SpendLimit's new maxHourlyCost (a JSON merge patch of its spec). */
  async patchSpendLimit(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
    await this.#client.call("PATCH", `/apis/${apiVersion}/namespaces/${namespace}/spendlimits/${name}`, {
      body: { spec },
      contentType: patchTypes.merge,
    });
  }

  async deleteSpendLimit(namespace: string, name: string): Promise<void> {
    await ignoreNotFound(
      this.#client.call("DELETE", `/apis/${apiVersion}/namespaces/${namespace}/spendlimits/${name}`),
    );
  }

  /** Sets (a string) or removes (null) annotations of a Namespace, as `kubectl annotate` does. */
  async annotateNamespace(name: string, annotations: Record<string, string | null>): Promise<void> {
    await this.#client.call("PATCH", `/api/v1/namespaces/${name}`, {
      body: { metadata: { annotations } },
      contentType: patchTypes.merge,
    });
  }

  /** A SpendLimit's status as the apiserver holds it. */
  async spendLimitStatus(namespace: string, name: string): Promise<unknown> {
    const body = await this.#client.call(
      "GET",
      `/apis/${apiVersion}/namespaces/${namespace}/spendlimits/${name}`,
    );
    return z.looseObject({ status: z.unknown() }).parse(body).status;
  }

  async create(kind: Kind, namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
    const body = { apiVersion, kind, metadata: { name, namespace }, spec };
    await this.#client.call("POST", collection(kind, namespace), { body });
  }

  /**
   * Creates a resource from a manifest's metadata and spec, as `kubectl apply` of an edited export
   * does: labels, annotations and finalizers are kept as given.
   */
  async apply(kind: Kind, metadata: Manifest["metadata"], spec: Record<string, unknown>): Promise<void> {
    const body = { apiVersion, kind, metadata, spec };
    await this.#client.call("POST", collection(kind, metadata.namespace), { body });
  }

  /** A JSON merge patch of the spec. */
  async patchSpec(kind: Kind, namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
    await this.#client.call("PATCH", `${collection(kind, namespace)}/${name}`, {
      body: { spec },
      contentType: patchTypes.merge,
    });
  }

  /** Sets metadata.annotations (a JSON merge patch). */
  async annotate(
    kind: Kind,
    namespace: string,
    name: string,
    annotations: Record<string, string>,
  ): Promise<void> {
    await this.#client.call("PATCH", `${collection(kind, namespace)}/${name}`, {
      body: { metadata: { annotations } },
      contentType: patchTypes.merge,
    });
  }

  /** One resource, or undefined when it is not there. */
  async get(kind: Kind, namespace: string, name: string): Promise<Resource | undefined> {
    try {
      return resourceSchema.parse(await this.#client.call("GET", `${collection(kind, namespace)}/${name}`));
    } catch (error) {
      if (isKubeError(error, "not_found")) return undefined;
      throw error;
    }
  }

  async delete(kind: Kind, namespace: string, name: string): Promise<void> {
    await ignoreNotFound(this.#client.call("DELETE", `${collection(kind, namespace)}/${name}`));
  }

  /** Every resource of the kind in all namespaces. */
  async list(kind: Kind): Promise<Resource[]> {
    const body = await this.#client.call("GET", `/apis/${apiVersion}/${plurals[kind]}`);
    return z.object({ items: z.array(resourceSchema) }).parse(body).items;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

function collection(kind: Kind, namespace: string): string {
  return `/apis/${apiVersion}/namespaces/${namespace}/${plurals[kind]}`;
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!isKubeError(error, "not_found")) throw error;
  }
}

export { conditionOf } from "./resource.ts";
