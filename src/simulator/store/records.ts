/** In-memory records of the simulated service. Times are simulated epoch milliseconds. */

export type Role = "owner" | "editor" | "viewer";
export type Members = Map<string, Role>;

export interface User {
  id: string;
  email: string;
  /** Micro-USD; may go negative while servers keep running. */
  balance: number;
  frozen: boolean;
  createdAt: number;
  /** Position among users, used in invoice numbers. */
  index: number;
  lastAccrualAt: number;
  /** Exact accrual (see `accrualUnits`) by `date|resourceType|resourceId`. */
  costs: Map<string, bigint>;
  /** Bumped whenever the spend rate changes, so a stale exhaustion event is ignored. */
  spendGeneration: number;
}

export interface ApiKey {
  id: string;
  token: string;
  userId: string;
  scopes: string[];
  projectIds: string[];
  expiresAt: number | null;
  revoked: boolean;
  /** Set on an OAuth access token (accepted by the MCP server only): the client it was issued to. */
  oauthClient?: { clientId: string };
}

export interface Project {
  id: string;
  seq: number;
  name: string;
  ownerId: string;
  members: Members;
  createdAt: number;
}

export interface Port {
  port: number;
  protocol: string;
}

export interface EnvVar {
  name: string;
  value: string;
  secret: boolean;
}

export interface Volume {
  name: string;
  mountPath: string;
  sizeGb: number;
}

export interface Hardware {
  cpu?: number;
  memoryMb?: number;
  gpu?: number;
  diskGb?: number;
}

export interface Placement {
  csp?: string;
  region?: string;
  zone?: string;
}

export interface AppConfig {
  image?: string;
  ports: Port[];
  instances: { min: number; max: number };
  env: EnvVar[];
  volumes: Volume[];
  hardware: Hardware;
  placement: Placement;
  gridPriorities: Record<string, number>;
  command?: string[];
}

export interface Source {
  provider: string;
  repository: string;
  branch: string;
  path?: string;
}

/** A state the docs don't list, shown for a while in place of the real one (harsh profile). */
export interface Disguise {
  state: string;
  until: number;
}

export type AppState =
  | "requested"
  | "deferred"
  | "building"
  | "build_failed"
  | "provisioning"
  | "start_blocked"
  | "running"
  | "stopping"
  | "stopped";

export type NodeState = "provisioning" | "running" | "stopping";

export interface AppError {
  code: string;
  message: string;
  at: number;
}

export interface App {
  id: string;
  seq: number;
  projectId: string;
  name: string;
  config: AppConfig;
  source?: Source;
  buildId?: string;
  /** A runnable image exists: an image app, or a repository app with a successful build. */
  imageReady: boolean;
  members: Members;
  createdAt: number;
  updatedAt: number;
  state: AppState;
  targetState: "running" | "stopped";
  nodes: { id: string; state: NodeState }[];
  errors: AppError[];
  /** Endpoints have addresses. */
  wired: boolean;
  /** Why the app is start_blocked or deferred, so it resumes when the cause goes away. */
  waitingFor: "balance" | "placement" | null;
  /** Bumped on every lifecycle change so stale timed events do nothing. */
  generation: number;
  logs: string[];
  lastHeartbeatAt: number;
  /** Running node-milliseconds, and micro-USD spent. */
  nodeMs: number;
  spent: number;
  disguise?: Disguise;
}

export type BuildState = "queued" | "running" | "succeeded" | "failed";

export interface Build {
  id: string;
  appId: string;
  projectId: string;
  state: BuildState;
  /** The step this build will fail at (decided when it is queued), or null. */
  failStep: string | null;
  createdAt: number;
  finishesAt: number;
  finishedAt: number | null;
  logs: string[];
  disguise?: Disguise;
}

export interface Grid {
  id: string;
  seq: number;
  name: string;
  description: string | null;
  ownerId: string;
  members: Members;
  createdAt: number;
}

export type ServerState =
  | "provisioning"
  | "running"
  | "hibernating"
  | "hibernated"
  | "waking"
  | "rebooting"
  | "retiring"
  | "deprovisioning"
  /** The machine broke (made so through the control API); only replacing or deprovisioning it helps. */
  | "failed";

export interface Server {
  address: string;
  seq: number;
  ownerId: string;
  orderId: string;
  gridIds: string[];
  state: ServerState;
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
  hourlyPrice: number;
  createdAt: number;
  generation: number;
}

export type OrderState = "pending" | "provisioning" | "completed" | "failed";

export interface Order {
  id: string;
  seq: number;
  ownerId: string;
  state: OrderState;
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
  count: number;
  gridIds: string[];
  servers: string[];
  error: { code: string; message: string } | null;
  forceFail: boolean;
  createdAt: number;
  completesAt: number;
  disguise?: Disguise;
}
