import { isKubeError, type KubeClient } from "../../../runtime/index.ts";
import { type Problem, stalledBy } from "../../service/failure.ts";
import { Reason } from "../../service/reasons.ts";
import {
  type ConfigMap,
  configMapSchema,
  type DesiredOutputs,
  type OutputOwner,
  outputsDigest,
  ownedBy,
  planOutputWrite,
} from "./config-map.ts";

/** One resource's outputs, as this reconcile sees them. */
export interface OutputSync {
  /** The resource's `namespace/name`. */
  key: string;
  owner: OutputOwner;
  /** spec.outputs.configMapName. */
  configMapName: string | undefined;
  /** status.outputs.configMapName: the ConfigMap berth last wrote. */
  recorded: string | undefined;
  data: Record<string, string>;
  ready: boolean;
  deleting: boolean;
  /** The reconcile request being handled: a new one makes berth read the ConfigMap again. */
  request: string | undefined;
}

export interface OutputSyncResult {
  /** The ConfigMap berth owns and wrote this resource's outputs to, for status.outputs. */
  recorded: string | undefined;
  /** A person must act (a foreign ConfigMap, a write RBAC refuses). */
  problem: Problem | undefined;
  /** A failed call to retry with backoff. */
  error: unknown;
}

interface Written {
  uid: string;
  name: string;
  digest: string;
  request: string | undefined;
}

/**
 * Writes each resource's output ConfigMap, never one berth did not create. No ConfigMap informer:
 * the digest of what was last written is remembered per resource, so a reconcile that changes no
 * output makes no call; after a restart (or on a reconcile request) one GET compares.
 */
export class OutputWriter {
  readonly #kube: KubeClient;
  readonly #written = new Map<string, Written>();

  constructor(kube: KubeClient) {
    this.#kube = kube;
  }

  forget(key: string): void {
    this.#written.delete(key);
  }

  async sync(input: OutputSync): Promise<OutputSyncResult> {
    try {
      return { ...(await this.#sync(input)), error: undefined };
    } catch (error) {
      const recorded = input.recorded;
      if (isKubeError(error, "forbidden"))
        return { recorded, problem: refused(input, error), error: undefined };
      return { recorded, problem: undefined, error };
    }
  }

  async #sync(input: OutputSync): Promise<Omit<OutputSyncResult, "error">> {
    const { key, owner, configMapName: name, recorded } = input;
    if (recorded !== undefined && recorded !== name) await this.#deleteOwned(owner, recorded);
    if (name === undefined) {
      this.#written.delete(key);
      return { recorded: undefined, problem: undefined };
    }
    const desired: DesiredOutputs = { name, data: input.data, ready: input.ready };
    const written: Written = {
      uid: owner.uid,
      name,
      digest: outputsDigest(desired, owner),
      request: input.request,
    };
    if (sameWrite(this.#written.get(key), written)) return { recorded: name, problem: undefined };
    const existing = await this.#read(owner.namespace, name);
    const write = planOutputWrite({ existing, desired, owner, deleting: input.deleting });
    switch (write.type) {
      case "conflict":
        this.#written.delete(key);
        return { recorded: undefined, problem: write.problem };
      case "none":
        return { recorded: undefined, problem: undefined };
      case "create":
        await this.#kube.call("POST", collection(owner.namespace), { body: write.configMap });
        break;
      case "update":
        // A PUT with the read's resourceVersion: a change since the read (a foreign ConfigMap put in
        // its place) is a 409, retried from a fresh read.
        await this.#kube.call("PUT", path(owner.namespace, name), { body: write.configMap });
        break;
    }
    this.#written.set(key, written);
    return { recorded: name, problem: undefined };
  }

  async #read(namespace: string, name: string): Promise<ConfigMap | undefined> {
    try {
      return configMapSchema.parse(await this.#kube.call("GET", path(namespace, name)));
    } catch (error) {
      if (isKubeError(error, "not_found")) return undefined;
      throw error;
    }
  }

  /** Deletes a ConfigMap berth wrote for this resource; one that is not its own is left alone. */
  async #deleteOwned(owner: OutputOwner, name: string): Promise<void> {
    const existing = await this.#read(owner.namespace, name);
    if (existing === undefined || !ownedBy(existing, owner.uid)) return;
    const { uid, resourceVersion } = existing.metadata;
    try {
      await this.#kube.call("DELETE", path(owner.namespace, name), {
        body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid, resourceVersion } },
      });
    } catch (error) {
      if (!isKubeError(error, "not_found")) throw error;
    }
  }
}

function sameWrite(known: Written | undefined, next: Written): boolean {
  return (
    known !== undefined &&
    known.uid === next.uid &&
    known.name === next.name &&
    known.digest === next.digest &&
    known.request === next.request
  );
}

function refused(input: OutputSync, error: Error): Problem {
  return stalledBy(
    Reason.Forbidden,
    `writing the outputs to ConfigMap ${input.configMapName ?? input.recorded} was refused (${error.message}); ` +
      "grant the operator configmaps get, create, update and delete in this namespace",
  );
}

function collection(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`;
}

function path(namespace: string, name: string): string {
  return `${collection(namespace)}/${encodeURIComponent(name)}`;
}
