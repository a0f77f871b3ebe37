import { z } from "zod";
import { ApiError } from "../errors.ts";
import { category, crdRevision, crdRevisionLabel, group, version } from "../meta.ts";
import type { KindDefinition, PrinterColumn } from "../resource.ts";
import { type StructuralSchema, toStructural } from "./structural.ts";

/** A CustomResourceDefinition as written to crds/, keyed as it is in YAML. */
export interface CrdManifest {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: "Namespaced";
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      selectableFields?: { jsonPath: string }[];
      schema: { openAPIV3Schema: StructuralSchema };
    }[];
  };
}

const readyCondition = '.status.conditions[?(@.type=="Ready")]';

/** Builds the CRD of one kind from its zod schema. */
export function crdManifest(definition: KindDefinition): CrdManifest {
  const { names } = definition;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${names.plural}.${group}`,
      labels: { "app.kubernetes.io/part-of": "berth", [crdRevisionLabel]: String(crdRevision) },
    },
    spec: {
      group,
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: [...names.shortNames],
        categories: [category],
      },
      scope: "Namespaced",
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns(definition),
          ...selectable([
            ...(definition.adminOnly === true ? [] : [".spec.credentialsRef.name"]),
            ...(definition.references ?? []),
          ]),
          schema: { openAPIV3Schema: openApiSchema(definition) },
        },
      ],
    },
  };
}

/** The apiserver stores no empty `selectableFields`: none is written then, so the files match it. */
function selectable(paths: string[]): { selectableFields?: { jsonPath: string }[] } {
  return paths.length === 0 ? {} : { selectableFields: paths.map((jsonPath) => ({ jsonPath })) };
}

function printerColumns(definition: KindDefinition): PrinterColumn[] {
  return [
    {
      name: "READY",
      type: "string",
      jsonPath: `${readyCondition}.status`,
      description: "Whether the resource is ready.",
    },
    {
      name: "REASON",
      type: "string",
      jsonPath: `${readyCondition}.reason`,
      description: "Why it is or is not ready.",
    },
    ...(definition.columns ?? []),
    ...(definition.externalId === undefined
      ? []
      : [{ name: "EXTERNAL-ID", type: "string" as const, ...definition.externalId }]),
    {
      name: "AGE",
      type: "date",
      jsonPath: ".metadata.creationTimestamp",
      description: "Time since creation.",
    },
    ...(definition.wideColumns ?? []).map((column) => ({ ...column, priority: 1 })),
  ];
}

function openApiSchema(definition: KindDefinition): StructuralSchema {
  const json = z.toJSONSchema(definition.schema, {
    target: "openapi-3.0",
    io: "input",
    unrepresentable: "throw",
  });
  const properties = json.properties ?? {};
  const spec = properties.spec;
  const status = properties.status;
  if (spec === undefined || status === undefined) {
    throw new ApiError(
      "unsupported_schema",
      `${definition.names.kind}: the schema needs spec and status properties`,
    );
  }
  return {
    description: definition.description,
    type: "object",
    properties: {
      apiVersion: {
        description:
          "APIVersion defines the versioned schema of this representation of an object. Servers should convert " +
          "recognized schemas to the latest internal value, and may reject unrecognized values.",
        type: "string",
      },
      kind: {
        description:
          "Kind is a string value representing the REST resource this object represents. Servers may infer this " +
          "from the endpoint the client submits requests to. In CamelCase.",
        type: "string",
      },
      metadata: { type: "object" },
      spec: toStructural(spec, "spec"),
      status: toStructural(status, "status"),
    },
    ...(json.required?.includes("spec") ? { required: ["spec"] } : {}),
  };
}
