import { namespaceAnnotations } from "../../api/meta.ts";
import { type ManagementPolicy, parsePolicyList } from "../../api/policies.ts";
import type { KubeObject, ResourceType } from "../../runtime/index.ts";
import type { ManagementSource, NamespaceManagement } from "./management.ts";

/** Namespaces, cluster-scoped: their annotations pause and give defaults. */
export const namespaceType: ResourceType = {
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
};

/** The operator's own word, for everything it watches (flags). */
export interface OperatorManagement {
  paused: boolean;
  policies: readonly ManagementPolicy[] | undefined;
  deletionPolicy: "Delete" | "Orphan" | undefined;
}

/**
 * What a Namespace's annotations say, over the operator's flags: a pause of either holds; a
 * default of the Namespace wins over the operator's. A value that can't be read is ignored. Pure.
 */
export function namespaceManagement(
  annotations: Record<string, string> | undefined,
  operator: OperatorManagement,
): NamespaceManagement {
  const notes = annotations ?? {};
  const policies = notes[namespaceAnnotations.managementPolicies];
  const deletion = notes[namespaceAnnotations.deletionPolicy]?.trim();
  return {
    paused: operator.paused
      ? "operator"
      : notes[namespaceAnnotations.paused]?.trim().toLowerCase() === "true"
        ? "namespace"
        : undefined,
    policies: (policies === undefined ? undefined : parsePolicyList(policies)) ?? operator.policies,
    deletionPolicy: deletion === "Delete" || deletion === "Orphan" ? deletion : operator.deletionPolicy,
  };
}

/** Whether a Namespace's change changes what it says (a watch wakes its resources only then). */
export function managementChanged(before: KubeObject, after: KubeObject): boolean {
  const of = (object: KubeObject) =>
    Object.values(namespaceAnnotations).map((key) => object.metadata.annotations?.[key]);
  return of(before).some((value, i) => value !== of(after)[i]);
}

/** Namespaces as the cache holds them, read with the operator's flags. */
export class NamespaceDefaults implements ManagementSource {
  readonly #namespaces: { get(key: string): KubeObject | undefined };
  readonly #operator: OperatorManagement;

  constructor(namespaces: { get(key: string): KubeObject | undefined }, operator: OperatorManagement) {
    this.#namespaces = namespaces;
    this.#operator = operator;
  }

  forNamespace(namespace: string | undefined): NamespaceManagement {
    const object = namespace === undefined ? undefined : this.#namespaces.get(namespace);
    return namespaceManagement(object?.metadata.annotations, this.#operator);
  }
}
