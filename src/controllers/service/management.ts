import type { ManagementPolicy } from "../../api/policies.ts";

/** What a Namespace (or the operator, for everything it watches) says about the resources in it. */
export interface NamespaceManagement {
  /** Every changing call is held: by the Namespace's berth.dev/paused annotation or the operator's flag. */
  paused: "namespace" | "operator" | undefined;
  /** Default management policies for resources that set none (Namespace annotation, then operator flag). */
  policies: readonly ManagementPolicy[] | undefined;
  /** Default deletion policy for resources that set none (Namespace annotation, then operator flag). */
  deletionPolicy: "Delete" | "Orphan" | undefined;
  /**
   * An annotation whose value berth can't read: changes are held as by a pause (failing closed: it
   * may have meant a pause, Observe or Orphan), and every resource there says which and what it takes.
   */
  unreadable?: UnreadableAnnotation | undefined;
}

/** A Namespace annotation berth can't read: its name, its value, and the values it takes. */
export interface UnreadableAnnotation {
  annotation: string;
  value: string;
  accepts: string;
}

/** Where the skeleton learns a Namespace's pause and defaults. */
export interface ManagementSource {
  forNamespace(namespace: string | undefined): NamespaceManagement;
}

/** A Namespace that pauses nothing and sets no defaults. */
export const noNamespaceDefaults: NamespaceManagement = {
  paused: undefined,
  policies: undefined,
  deletionPolicy: undefined,
};

/** No pause and no defaults: every resource as its spec says. */
export const noManagementDefaults: ManagementSource = { forNamespace: () => noNamespaceDefaults };
