import type { ServerOrder, ServerOrderStatus } from "../../api/server-order.ts";

/**
 * What other workloads read from a ServerOrder's output ConfigMap: the order's ID and, once the
 * servers are listed, their addresses (one a line) and how many there are ("" and "0" when none).
 */
export function serverOrderOutputs(_order: ServerOrder, status: ServerOrderStatus): Record<string, string> {
  const data: Record<string, string> = {};
  if (status.orderId !== undefined) data.orderId = status.orderId;
  if (status.servers !== undefined) {
    data.servers = status.servers.map((server) => server.address).join("\n");
    data.count = String(status.servers.length);
  }
  return data;
}
