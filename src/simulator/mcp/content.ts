/** Built-in reference text (`read_docs`) and app templates (`list_templates`). */

export const docs = {
  overview: {
    title: "What the service does",
    text: "A user owns projects; a project holds apps. An app runs from a container image (config.image) or from an image built out of a connected repository (source). Creating an app also tries to start it, and a started app consumes credits. Apps run on the service's own compute or on dedicated servers, collected into grids.",
  },
  apps: {
    title: "Deploying and removing apps",
    text: "create_app needs projectId, name, config and a new idempotencyKey; give exactly one of config.image and source. A 2xx answer does not mean the app serves traffic: poll get_app_status until an endpoint has a non-null address. To remove an app: stop_app, poll get_app_status until the state is stopped, then delete_app with confirm: true. Deleting a project needs all of its apps stopped.",
  },
  builds: {
    title: "Repository builds",
    text: "An app with a source is built first: poll get_build with the app's buildId (follow pollAfterSec where given), then get_app_status. A failed build leaves the app in build_failed: read get_build_logs, fix the cause, then trigger_build. Each trigger_build starts another build.",
  },
  diagnosis: {
    title: "Finding out why an app does not run",
    text: "Read get_app_status first (state, errors, endpoints), then get_app_logs, get_app_usage and, for repository apps, get_build_logs. deferred means the balance is used up (get_balance, add_credits); start_blocked means placement cannot be met now, or the container keeps exiting (check config.command).",
  },
  "dedicated-compute": {
    title: "Ordering dedicated servers",
    text: "browse_catalog (regions, zones, instance types), then provision_servers with dryRun: true for an estimate, then with dryRun: false and a new idempotencyKey for the order. Poll get_provision_order, following pollAfterSec, and verify with list_servers. Hibernation keeps the disk and its cost; wake can fail without capacity; replace_server retires the old machine without keeping its disk.",
  },
  billing: {
    title: "Credits and costs",
    text: "get_balance shows the balance, get_costs the costs per day and resource. add_credits returns a hosted payment URL for the user to open; it charges nothing by itself. Saved-card charges are offered through REST only.",
  },
  errors: {
    title: "Tool errors",
    text: "A failed tool call has isError: true and structuredContent.error with code, message, requestId and code-specific fields (details for validation_failed, requiredScopes for insufficient_scope, retryAfterSec for request_in_progress and rate_limited). Correct the cause of validation, permission, placement, balance and lifecycle errors before retrying; retry transient failures only when repeating is safe. Quote the requestId when reporting a problem, never the credential.",
  },
  idempotency: {
    title: "Idempotency keys",
    text: "create_project, create_app, provision_servers and replace_server take an idempotencyKey (1 to 255 characters, no whitespace). Retrying with the same key and arguments returns the recorded answer; the same key with other arguments is idempotency_conflict; while the first call runs it is request_in_progress (wait retryAfterSec). Use a new key for each distinct action, including a dry run and the real order. Keys are kept 24 hours.",
  },
  "rate-limits": {
    title: "Rate limits",
    text: "REST and MCP share the limits: by default 300 requests a minute per credential and 600 per user. One HTTP request to the MCP endpoint is one unit; JSON-RPC batches are refused. A refused request is HTTP 429 with Retry-After.",
  },
} as const satisfies Record<string, { title: string; text: string }>;

export type DocTopic = keyof typeof docs;
export const docTopics = Object.keys(docs) as [DocTopic, ...DocTopic[]];

const http = [{ port: 80, protocol: "http80_load_balancer" }];

export const templates = [
  {
    id: "static-site",
    name: "Static site (nginx)",
    description: "Serves files over HTTP from an nginx image on port 80.",
    app: { name: "<app-name>", config: { image: "nginx:1.27", ports: http } },
    notes:
      "Replace <app-name> with a name unique in the project. To serve your own files, replace config.image with an image that contains them.",
  },
  {
    id: "node-web",
    name: "Node.js web app from a repository",
    description: "Builds a repository with a Node.js web server listening on port 80.",
    app: {
      name: "<app-name>",
      config: { ports: http, env: [{ name: "NODE_ENV", value: "production" }] },
      source: { provider: "github", repository: "<owner>/<repo>", branch: "main" },
    },
    notes:
      "Replace <app-name>, and <owner>/<repo> with a connected repository; change branch if needed. The server must listen on port 80. Poll get_build with the returned buildId before reading the status.",
  },
  {
    id: "postgres",
    name: "PostgreSQL database",
    description: "A single PostgreSQL instance with a persistent volume, reachable over TCP.",
    app: {
      name: "<app-name>",
      config: {
        image: "postgres:16",
        ports: [{ port: 5432, protocol: "tcp" }],
        env: [{ name: "POSTGRES_PASSWORD", value: "<password>", secret: true }],
        volumes: [{ name: "data", mountPath: "/var/lib/postgresql/data", sizeGb: 10 }],
        hardware: { cpu: 1, memoryMb: 1024 },
      },
    },
    notes:
      "Replace <app-name>, and <password> with a strong password (it is stored as a secret and reads back as null). Volumes cost storage; keep instances at {min: 1, max: 1}.",
  },
  {
    id: "worker",
    name: "Background worker",
    description: "A container without ports that runs a command.",
    app: {
      name: "<app-name>",
      config: { image: "<registry>/<image>:<tag>", command: ["<command>", "<argument>"] },
    },
    notes:
      "Replace <app-name>, <registry>/<image>:<tag> with your image, and command with what the worker runs (or drop command to use the image's own). A worker has no endpoints.",
  },
];
