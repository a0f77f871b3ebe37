// What the checker reads of a resource, apart from cluster.ts so that the checker and its tests
// load no Kubernetes client.
import type { Condition, Resource } from "./cluster.ts";

export function conditionOf(resource: Resource, type: string): Condition | undefined {
  return resource.status?.conditions?.find((c) => c.type === type);
}
