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

/** The values each Namespace annotation takes, for the message when one can't be read. */
export const annotationValues = {
  [namespaceAnnotations.paused]: '"true" or "false"',
  [namespaceAnnotations.managementPolicies]:
    '"*", or Observe with any of Create, Update and Delete, comma-separated and spelt so (e.g. "Observe" or "Observe,Create,Update")',
  [namespaceAnnotations.deletionPolicy]: '"Delete" or "Orphan"',
} as const;

/**
 * What a Namespace's annotations say, over the operator's flags: a pause of either holds; a
 * default of the Namespace wins over the operator's. A value that can't be read fails closed: it
 * is reported (`unreadable`, the first in the order above) and holds changes as a pause does;
 * its default is left to the operator's. Pure.
 */
export function namespaceManagement(
  annotations: Record<string, string> | undefined,
  operator: OperatorManagement,
): NamespaceManagement {
  const notes = annotations ?? {};
  const paused = readPaused(notes[namespaceAnnotations.paused]);
  const rawPolicies = notes[namespaceAnnotations.managementPolicies];
  const policies = rawPolicies === undefined ? undefined : parsePolicyList(rawPolicies);
  const deletion = readDeletion(notes[namespaceAnnotations.deletionPolicy]);
  const unreadable = [
    paused === "unreadable" ? namespaceAnnotations.paused : undefined,
    rawPolicies !== undefined && policies === undefined ? namespaceAnnotations.managementPolicies : undefined,
    deletion === "unreadable" ? namespaceAnnotations.deletionPolicy : undefined,
  ].find((name) => name !== undefined);
  return {
    paused: operator.paused ? "operator" : paused === true ? "namespace" : undefined,
    policies: policies ?? operator.policies,
    deletionPolicy: deletion === undefined || deletion === "unreadable" ? operator.deletionPolicy : deletion,
    ...(unreadable === undefined
      ? {}
      : {
          unreadable: {
            annotation: unreadable,
            value: notes[unreadable] ?? "",
            accepts: annotationValues[unreadable],
          },
        }),
  };
}

function readPaused(value: string | undefined): boolean | "unreadable" {
  if (value === undefined) return false;
  const word = value.trim().toLowerCase();
  return word === "true" ? true : word === "false" ? false : "unreadable";
}

function readDeletion(value: string | undefined): "Delete" | "Orphan" | "unreadable" | undefined {
  if (value === undefined) return undefined;
  const word = value.trim();
  return word === "Delete" || word === "Orphan" ? word : "unreadable";
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
