import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Condition } from "../../src/api/conditions.ts";
import { group, version } from "../../src/api/meta.ts";
import { unlessNotFound } from "./kube.ts";

/** A berth resource as read back from the apiserver (tests look at metadata and status). */
export interface BerthObject {
  metadata: {
    name: string;
    uid?: string;
    finalizers?: string[];
    deletionTimestamp?: string;
    generation?: number;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
}

const managed = { grids: "Grid", serverorders: "ServerOrder", projects: "Project", apps: "App" } as const;
const kinds = { ...managed, spendlimits: "SpendLimit" } as const;
/** The kinds that manage an external object. */
export type BerthPlural = keyof typeof managed;
/** Every kind, SpendLimit too. */
type AnyPlural = keyof typeof kinds;

/** Create, read, patch, delete and wait on Grids, ServerOrders and Projects of one namespace, through client-node. */
export function berthObjects(config: KubeConfig, namespace: () => string) {
  const api = config.makeApiClient(CustomObjectsApi);
  const at = (plural: AnyPlural) => ({ group, version, plural, namespace: namespace() });
  const objects = {
    async create(plural: AnyPlural, name: string, spec: Record<string, unknown>): Promise<BerthObject> {
      const body = { apiVersion: `${group}/${version}`, kind: kinds[plural], metadata: { name }, spec };
      return (await api.createNamespacedCustomObject({ ...at(plural), body })) as BerthObject;
    },
    /** The object, or undefined once it is gone (a 404); any other failure is thrown. */
    async get(plural: AnyPlural, name: string): Promise<BerthObject | undefined> {
      return (await unlessNotFound(api.getNamespacedCustomObject({ ...at(plural), name }))) as
        | BerthObject
        | undefined;
    },
    /** A JSON merge patch of the object. */
    async patch(plural: AnyPlural, name: string, body: Record<string, unknown>): Promise<void> {
      await api.patchNamespacedCustomObject(
        { ...at(plural), name, body },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    },
    /** A JSON merge patch of the object's status subresource. */
    async patchStatus(plural: AnyPlural, name: string, status: Record<string, unknown>): Promise<void> {
      await api.patchNamespacedCustomObjectStatus(
        { ...at(plural), name, body: { status } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    },
    async remove(plural: AnyPlural, name: string): Promise<void> {
      await api.deleteNamespacedCustomObject({ ...at(plural), name });
    },
    /** Waits until `test` holds for the object (undefined once deleted); fails naming its last status. */
    async waitFor(
      plural: AnyPlural,
      name: string,
      test: (object: BerthObject | undefined) => boolean,
      timeoutMs = 20_000,
    ): Promise<BerthObject | undefined> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const last = await objects.get(plural, name);
        if (test(last)) return last;
        if (Date.now() > deadline) {
          throw new Error(
            `${plural}/${name} did not reach the expected state; last status: ${JSON.stringify(last?.status)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    /** Waits until the object is gone (its finalizers released). */
    async waitForGone(plural: AnyPlural, name: string, timeoutMs = 20_000): Promise<void> {
      await objects.waitFor(plural, name, (object) => object === undefined, timeoutMs);
    },
  };
  return objects;
}

export function conditionOf(object: BerthObject | undefined, type: string): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

/** The object has condition `type` with `status` (and `reason`, when given). */
export function withCondition(type: string, status: Condition["status"] = "True", reason?: string) {
  return (object: BerthObject | undefined) => {
    const found = conditionOf(object, type);
    return found?.status === status && (reason === undefined || found.reason === reason);
  };
}

/** The object's Pending intent for `operation` (status.intents), if any. */
export function pending(
  object: BerthObject | undefined,
  operation: string,
): { operation: string; key: string; input: string; attempt: number; state: string } | undefined {
  const intents = (object?.status?.intents ?? []) as { operation: string; state: string }[];
  return intents.find((i) => i.operation === operation && i.state === "Pending") as ReturnType<
    typeof pending
  >;
}
