import { stringify } from "yaml";
import { apiVersion } from "../../api/meta.ts";
import type { App, Grid, Order, Project, Server } from "../../hosting/index.ts";

/** What an account has at the service, as `berth import` read it. */
export interface Inventory {
  projects: { project: Project; apps: App[] }[];
  grids: Grid[];
  orders: { order: Order; servers: Server[] }[];
}

/** A Kubernetes object `berth import` prints. */
export interface Manifest {
  apiVersion: string;
  kind: "Project" | "App" | "Grid" | "ServerOrder";
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

const observe = ["Observe"];

/**
 * A DNS-1123 name from a service name, unique among `taken` (a clash gets the ID's first
 * characters). Pure.
 */
export function resourceName(serviceName: string, id: string, taken: Set<string>): string {
  const base =
    serviceName
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 50)
      .replace(/-+$/g, "") || "unnamed";
  const suffix = id.toLowerCase().replace(/[^a-z0-9]/g, "");
  let name = base;
  for (let n = 6; taken.has(name) && n <= suffix.length; n += 2) name = `${base}-${suffix.slice(0, n)}`;
  taken.add(name);
  return name;
}

function appSpec(app: App): Record<string, unknown> {
  const { config } = app;
  const literal = config.env.filter((e) => !e.secret && e.value !== null);
  const grids = Object.entries(config.gridPriorities);
  return {
    projectId: app.projectId,
    appId: app.id,
    displayName: app.name,
    ...(app.source === undefined
      ? { image: config.image ?? "" }
      : {
          source: {
            provider: app.source.provider,
            repository: app.source.repository,
            branch: app.source.branch,
            ...(app.source.path === undefined ? {} : { path: app.source.path }),
          },
        }),
    ...(config.ports.length === 0
      ? {}
      : { ports: config.ports.map(({ port, protocol }) => ({ port, protocol })) }),
    instances: { min: config.instances.min, max: config.instances.max },
    ...(literal.length === 0 ? {} : { env: literal.map(({ name, value }) => ({ name, value })) }),
    ...(config.volumes.length === 0 ? {} : { volumes: config.volumes }),
    ...(Object.keys(config.hardware).length === 0 ? {} : { hardware: config.hardware }),
    ...(Object.keys(config.placement).length === 0 ? {} : { placement: config.placement }),
    ...(grids.length === 0
      ? {}
      : { gridPriorities: grids.map(([gridId, priority]) => ({ gridId, priority })) }),
    ...(config.command === null || config.command === undefined ? {} : { command: config.command }),
    managementPolicies: observe,
  };
}

/** Server states on the way out: not counted as the order's servers now. */
const leaving = new Set(["deprovisioning", "deprovisioned", "retiring", "retired"]);

/**
 * A ServerOrder that adopts the order by spec.orderId, with the order's own placement, count, grids
 * and power, so [Observe] finds no difference; or why none is printed.
 */
export function orderSpec(
  order: Order,
  servers: readonly Server[],
): { spec: Record<string, unknown>; note?: string } | { skipped: string } {
  const what = `order ${order.id} (${order.state})`;
  if (order.state === "failed")
    return { skipped: `${what} failed at the service: nothing to adopt, not printed` };
  const [first] = servers;
  const csp = order.csp ?? first?.csp;
  const region = order.region ?? first?.region;
  const zone = order.zone ?? first?.zone;
  const instanceType = order.instanceType ?? first?.instanceType;
  if (csp === undefined || region === undefined || instanceType === undefined)
    return {
      skipped: `${what}: the service did not say its csp, region or instance type, so it is not printed`,
    };
  const count = order.count ?? servers.length;
  const live = servers.filter((s) => !leaving.has(s.state));
  const hibernated = live.length > 0 && live.every((s) => s.state === "hibernated");
  const spec = {
    orderId: order.id,
    csp,
    region,
    ...(zone === undefined ? {} : { zone }),
    instanceType,
    count: Math.max(1, count),
    ...(order.gridIds.length === 0 ? {} : { gridIds: [...order.gridIds] }),
    ...(hibernated ? { power: "Hibernated" } : {}),
    managementPolicies: observe,
  };
  const missing =
    order.state === "completed" && live.length < count
      ? `${what} delivered ${count} server(s) but ${live.length} are listed now: its ServerOrder reports ServersMissing`
      : undefined;
  return missing === undefined ? { spec } : { spec, note: missing };
}

/** Observe-only manifests for everything in the inventory, and notes on what they leave out. Pure. */
export function importManifests(
  inventory: Inventory,
  namespace: string | undefined,
): { manifests: Manifest[]; notes: string[] } {
  const taken = {
    Project: new Set<string>(),
    App: new Set<string>(),
    Grid: new Set<string>(),
    ServerOrder: new Set<string>(),
  };
  const metadata = (name: string) => ({ name, ...(namespace === undefined ? {} : { namespace }) });
  const manifests: Manifest[] = [];
  const notes: string[] = [];
  for (const { project, apps } of inventory.projects) {
    manifests.push({
      apiVersion,
      kind: "Project",
      metadata: metadata(resourceName(project.name, project.id, taken.Project)),
      spec: { projectId: project.id, displayName: project.name, managementPolicies: observe },
    });
    for (const app of apps) {
      manifests.push({
        apiVersion,
        kind: "App",
        metadata: metadata(resourceName(app.name, app.id, taken.App)),
        spec: appSpec(app),
      });
      const secret = app.config.env.filter((e) => e.secret).map((e) => e.name);
      if (secret.length > 0)
        notes.push(
          `app ${app.id} (${app.name}) has secret env ${secret.join(", ")}: the service never shows their values; add them with valueFrom.secretKeyRef before leaving Observe`,
        );
    }
  }
  for (const grid of inventory.grids) {
    manifests.push({
      apiVersion,
      kind: "Grid",
      metadata: metadata(resourceName(grid.name ?? "grid", grid.id, taken.Grid)),
      spec: {
        gridId: grid.id,
        ...(grid.name === undefined ? {} : { displayName: grid.name }),
        managementPolicies: observe,
      },
    });
  }
  for (const { order, servers } of inventory.orders) {
    const printed = orderSpec(order, servers);
    if ("skipped" in printed) {
      notes.push(printed.skipped);
      continue;
    }
    manifests.push({
      apiVersion,
      kind: "ServerOrder",
      metadata: metadata(resourceName(`order-${order.id}`, order.id, taken.ServerOrder)),
      spec: printed.spec,
    });
    if (printed.note !== undefined) notes.push(printed.note);
  }
  return { manifests, notes };
}

/** The manifests as one YAML stream, the notes and the call count as comments first. */
export function renderImport(
  result: { manifests: Manifest[]; notes: string[] },
  calls: { made: number; limit: number | undefined },
): string {
  const header = [
    "# berth import: Observe-only manifests (managementPolicies: [Observe]); apply them to adopt what the",
    '# account has, then switch to full management one field at a time (and managementPolicies: ["*"]).',
    `# ${calls.made} calls to the service${calls.limit === undefined ? "" : ` (the key allows ${calls.limit} a minute)`}.`,
    ...result.notes.map((note) => `# note: ${note}`),
  ];
  const docs = result.manifests.map((m) => stringify(m, { lineWidth: 0 }).trimEnd());
  return `${header.join("\n")}\n${docs.map((d) => `---\n${d}`).join("\n")}\n`;
}
