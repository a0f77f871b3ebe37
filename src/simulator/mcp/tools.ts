import { z } from "zod";
import { MAX_LOG_BYTES } from "../domain/logs.ts";
import { MAX_LIMIT } from "../pagination.ts";

/**
 * One MCP tool: which operation it runs and how its inputs map to that operation. Inputs named
 * like a path value of the operation (`{projectId}`) fill the path; the other declared `inputs`
 * become query values; `idempotencyKey` and `confirm` are handled by the tool runner; every other
 * input is a field of the JSON body, checked by the operation's own body schema.
 */
export interface ToolSpec {
  name: string;
  description: string;
  /** An operation name (the REST routes table, or an MCP-only operation), or one picked by an input. */
  operation: string | { input: string; choices: Record<string, string> };
  /** Path values, query values and the picking input, with descriptions. */
  inputs?: z.ZodRawShape;
  /** Descriptions of the body's top-level fields. */
  bodyFields?: Record<string, string>;
  /** Destructive: refused with `confirmation_required` unless `confirm: true`. */
  confirm?: boolean;
}

const hex24 = (what: string) => z.string().describe(`${what} id (24 hexadecimal characters)`);
const projectId = hex24("Project");
const app = { projectId, appId: hex24("App") };
const page = {
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Page size, 1–${MAX_LIMIT} (default 50)`),
  cursor: z.string().optional().describe("nextCursor of the previous page; page on until it is null"),
};
const maxBytes = z
  .number()
  .int()
  .min(1)
  .max(MAX_LOG_BYTES)
  .optional()
  .describe("Text budget in bytes (default 1 MiB, at most 4 MiB); the oldest lines that fit are returned");
const buildId = z.string().describe("Build id (bld_…), as returned by create_app or trigger_build");
const address = z.string().describe("Server address: 0x followed by 40 hexadecimal characters");
const addresses = "Server addresses (0x followed by 40 hexadecimal characters), 1 to 50";
const appBody = {
  name: "App name, unique in the project (1–100 characters)",
  config:
    "App config: image, ports [{port, protocol}], instances {min, max}, env [{name, value, secret}], volumes, hardware, placement, gridPriorities, command",
  source: "Repository to build instead of config.image: {provider, repository: owner/name, branch, path?}",
};

export const toolSpecs: readonly ToolSpec[] = [
  {
    name: "whoami",
    description: "Show the caller's identity: the user, and the API key or OAuth client with its scopes.",
    operation: "getMe",
  },
  {
    name: "read_docs",
    description: "Read reference text for a feature; without a topic, list the topics.",
    operation: "readDocs",
    bodyFields: { topic: "The topic to read" },
  },
  {
    name: "list_projects",
    description: "List the projects the caller can see, one page at a time.",
    operation: "listProjects",
    inputs: { name: z.string().optional().describe("Only projects with exactly this name"), ...page },
  },
  {
    name: "create_project",
    description: "Create a project owned by the caller.",
    operation: "createProject",
    bodyFields: { name: "Project name (1–100 characters)" },
  },
  {
    name: "delete_project",
    description: "Delete a project and its apps. Every app must be stopped first. Requires confirm: true.",
    operation: "deleteProject",
    inputs: { projectId },
    confirm: true,
  },
  {
    name: "list_templates",
    description: "List app templates to start from; each has notes on the placeholders to replace.",
    operation: "listTemplates",
  },
  {
    name: "create_app",
    description:
      "Create an app in a project and try to start it (a started app consumes credits). Poll get_app_status until an endpoint has an address.",
    operation: "createApp",
    inputs: { projectId },
    bodyFields: appBody,
  },
  {
    name: "update_app",
    description:
      "Change an app. ports, env and volumes replace the whole list; gridPriorities replaces the map; hardware and placement merge by key (null removes a key); instances needs min and max together; a secret env value null keeps the stored secret.",
    operation: "updateApp",
    inputs: app,
    bodyFields: appBody,
  },
  {
    name: "get_app_status",
    description: "Read an app's state, target state, nodes, recent errors and endpoints.",
    operation: "getAppStatus",
    inputs: app,
  },
  {
    name: "get_app_logs",
    description: "Export an app's runtime logs as {text, lines, truncated}.",
    operation: "getAppLogs",
    inputs: { ...app, maxBytes },
  },
  {
    name: "get_app_usage",
    description: "Read an app's resource utilization and cost.",
    operation: "getAppUsage",
    inputs: app,
  },
  {
    name: "get_build",
    description: "Read a build's state; follow pollAfterSec while it runs.",
    operation: "getBuild",
    inputs: { buildId },
  },
  {
    name: "get_build_logs",
    description: "Export a build's logs as {text, lines, truncated}.",
    operation: "getBuildLogs",
    inputs: { buildId, maxBytes },
  },
  {
    name: "trigger_build",
    description: "Start a new build of a repository app. Not idempotent: each call starts another build.",
    operation: "triggerBuild",
    inputs: app,
  },
  {
    name: "restart_app",
    description: "Restart an app on new nodes. Not idempotent: each call restarts again.",
    operation: "restartApp",
    inputs: app,
  },
  {
    name: "stop_app",
    description: "Stop an app; poll get_app_status until it is stopped.",
    operation: "stopApp",
    inputs: app,
  },
  {
    name: "delete_app",
    description: "Delete a stopped app. Requires confirm: true.",
    operation: "deleteApp",
    inputs: app,
    confirm: true,
  },
  {
    name: "delete_grid",
    description: "Delete a grid. Requires confirm: true.",
    operation: "deleteGrid",
    inputs: { gridId: z.string().describe("Grid id (a GUID)") },
    confirm: true,
  },
  {
    name: "browse_catalog",
    description: "Browse the catalog of dedicated compute: regions, zones or instance types.",
    operation: {
      input: "kind",
      choices: { regions: "listRegions", zones: "listZones", instanceTypes: "listInstanceTypes" },
    },
    inputs: {
      kind: z.enum(["regions", "zones", "instanceTypes"]).describe("What to list"),
      region: z.string().optional().describe("zones and instanceTypes: only those of this region"),
      available: z.boolean().optional().describe("zones: only zones with (true) or without (false) capacity"),
      csp: z
        .string()
        .optional()
        .describe('instanceTypes: only those of this provider ("native" is the service\'s own)'),
    },
  },
  {
    name: "provision_servers",
    description:
      "Order dedicated servers. Run it with dryRun: true for an estimate, then with dryRun: false and a new idempotencyKey; poll get_provision_order, then check list_servers.",
    operation: "provisionServers",
    bodyFields: {
      dryRun: "true: only estimate the cost; false: place the order",
      csp: 'Compute provider (default "native", the service\'s own)',
      region: "Region id from browse_catalog",
      zone: "Zone id of that region",
      instanceType: "Instance type id offered by the provider",
      count: "How many servers, 1–20",
      gridIds: "Grids (GUIDs) the servers join on arrival",
    },
  },
  {
    name: "get_provision_order",
    description: "Poll a provisioning order; follow pollAfterSec.",
    operation: "getOrder",
    inputs: { orderId: z.string().describe("Order id (ord_…)") },
  },
  {
    name: "list_servers",
    description: "List the caller's registered servers, one page at a time.",
    operation: "listServers",
    inputs: {
      orderId: z.string().optional().describe("Only servers of this order"),
      gridId: z.array(z.string()).optional().describe("Only servers in any of these grids (GUIDs)"),
      ...page,
    },
  },
  {
    name: "power_servers",
    description:
      "Hibernate, wake or reboot servers. Hibernation keeps the disk and its storage cost; wake can fail without capacity.",
    operation: "powerServers",
    bodyFields: { addresses, action: "hibernate, wake or reboot" },
  },
  {
    name: "deprovision_servers",
    description: "Destroy servers and their disks. Requires confirm: true.",
    operation: "deprovisionServers",
    bodyFields: { addresses },
    confirm: true,
  },
  {
    name: "replace_server",
    description:
      "Replace a server with a new one of the same placement and grids; the old machine is retired without keeping its disk. Requires confirm: true.",
    operation: "replaceServer",
    inputs: { address },
    bodyFields: { instanceType: "Instance type of the new server (default: the old one's)" },
    confirm: true,
  },
  { name: "get_balance", description: "Read the current balance.", operation: "getBalance" },
  {
    name: "get_costs",
    description: "Read costs per day and resource between two dates (default: this month so far).",
    operation: "getCosts",
    inputs: {
      from: z.string().optional().describe("First day, YYYY-MM-DD"),
      to: z.string().optional().describe("Last day, YYYY-MM-DD"),
    },
  },
  {
    name: "add_credits",
    description:
      "Get a hosted payment URL for the user to open to add credits. It charges nothing by itself.",
    operation: "addCredits",
    bodyFields: { amount: "Amount in USD, 5–10000" },
  },
];
