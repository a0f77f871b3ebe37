import { z } from "zod";
import { group, type KindDefinition, kinds, version } from "../../api/index.ts";
import { isKubeError, type KubeClient } from "../../runtime/index.ts";

/** One berth resource and what it manages at the service. */
export interface Managed {
  kind: string;
  plural: string;
  namespace: string;
  name: string;
  /** The service's objects: its ID (app, project, grid, order) and, for an order, its servers. */
  external: string[];
  /** Still holds berth's finalizer (the operator has work to do before it goes). */
  held: boolean;
}

const listSchema = z.object({
  items: z.array(
    z.looseObject({
      metadata: z.looseObject({
        name: z.string(),
        namespace: z.string().optional(),
        finalizers: z.array(z.string()).optional(),
      }),
      status: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});

const serversSchema = z.array(z.object({ address: z.string() })).catch([]);

/** `.status.appId` → appId. */
function statusField(definition: KindDefinition): string | undefined {
  return definition.externalId?.jsonPath.replace(/^\.status\./, "");
}

function externalOf(definition: KindDefinition, status: Record<string, unknown> | undefined): string[] {
  const field = statusField(definition);
  const id = field === undefined ? undefined : status?.[field];
  const servers = serversSchema.parse(status?.servers ?? []).map((server) => `server ${server.address}`);
  return [...(typeof id === "string" ? [`${field?.replace(/Id$/, "")} ${id}`] : []), ...servers];
}

/** Every berth resource in every namespace; a kind whose CRD is gone has none. */
export async function listManaged(kube: KubeClient): Promise<Managed[]> {
  const found: Managed[] = [];
  for (const definition of kinds) {
    const { plural, kind } = definition.names;
    let list: z.infer<typeof listSchema>;
    try {
      list = listSchema.parse(await kube.call("GET", `/apis/${group}/${version}/${plural}`));
    } catch (error) {
      if (isKubeError(error, "not_found")) continue;
      throw error;
    }
    for (const item of list.items) {
      found.push({
        kind,
        plural,
        namespace: item.metadata.namespace ?? "",
        name: item.metadata.name,
        external: externalOf(definition, item.status),
        held: (item.metadata.finalizers ?? []).length > 0,
      });
    }
  }
  return found;
}

export function describeManaged(resource: Managed): string {
  return `${resource.kind} ${resource.namespace}/${resource.name}`;
}
