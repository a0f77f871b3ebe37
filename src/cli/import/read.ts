import { type HostingClient, paginate } from "../../hosting/index.ts";
import type { Inventory } from "./manifests.ts";

/**
 * Everything the key can see: projects and their apps, grids, orders and their servers. Every
 * call goes through the client's limiter, so the reading keeps within the key's budget.
 */
export async function readInventory(client: HostingClient): Promise<Inventory> {
  await client.getMe();
  const projects: Inventory["projects"] = [];
  for await (const project of paginate((cursor) =>
    client.listProjects(cursor === undefined ? {} : { cursor }),
  )) {
    const apps = [];
    for await (const app of paginate((cursor) =>
      client.listApps(project.id, cursor === undefined ? {} : { cursor }),
    ))
      apps.push(app);
    projects.push({ project, apps });
  }
  const grids = [];
  for await (const grid of paginate((cursor) => client.listGrids(cursor === undefined ? {} : { cursor })))
    grids.push(grid);
  const servers = [];
  for await (const server of paginate((cursor) => client.listServers(cursor === undefined ? {} : { cursor })))
    servers.push(server);
  const orders: Inventory["orders"] = [];
  for await (const order of paginate((cursor) => client.listOrders(cursor === undefined ? {} : { cursor })))
    orders.push({ order, servers: servers.filter((s) => s.orderId === order.id) });
  return { projects, grids, orders };
}
