import type { z } from "zod";
import type * as s from "./schemas.ts";

// What the service returns (parsed) and what the client sends.

export type Page<T> = { items: T[]; nextCursor: string | null };
export type Me = z.output<typeof s.me>;
export type Project = z.output<typeof s.project>;
export type App = z.output<typeof s.app>;
export type AppConfig = z.output<typeof s.appConfig>;
export type AppStatus = z.output<typeof s.appStatus>;
export type Created = z.output<typeof s.created>;
export type CreatedApp = z.output<typeof s.createdApp>;
export type Build = z.output<typeof s.build>;
export type LogExport = z.output<typeof s.logExport>;
export type Usage = z.output<typeof s.usage>;
export type Grid = z.output<typeof s.grid>;
export type Server = z.output<typeof s.server>;
export type Order = z.output<typeof s.order>;
export type Estimate = z.output<typeof s.estimate>;
export type ReplaceResult = z.output<typeof s.replaceResult>;
export type Region = z.output<typeof s.region>;
export type Zone = z.output<typeof s.zone>;
export type InstanceType = z.output<typeof s.instanceType>;
export type Balance = z.output<typeof s.balance>;
export type Costs = z.output<typeof s.costs>;
export type Invoice = z.output<typeof s.invoice>;
export type Share = z.output<typeof s.share>;

export interface ListQuery {
  limit?: number;
  cursor?: string;
}

export interface NamedListQuery extends ListQuery {
  /** Exact name. */
  name?: string;
}

export interface ServerListQuery extends ListQuery {
  orderId?: string;
  gridId?: readonly string[];
}

export interface EnvVarInput {
  name: string;
  /** On update, null with `secret: true` keeps the stored secret. */
  value: string | null;
  secret?: boolean;
}

export interface AppConfigInput {
  image?: string;
  ports?: { port: number; protocol: string }[];
  instances?: { min: number; max: number };
  env?: EnvVarInput[];
  volumes?: { name: string; mountPath: string; sizeGb: number }[];
  hardware?: Record<string, unknown>;
  placement?: Record<string, unknown>;
  gridPriorities?: Record<string, number>;
  command?: string[] | null;
}

export interface AppSourceInput {
  provider: string;
  repository: string;
  branch: string;
  path?: string;
}

export interface CreateAppInput {
  name: string;
  config: AppConfigInput;
  source?: AppSourceInput;
}

/** Only the fields to change; lists and maps replace, hardware and placement merge by key. */
export interface AppPatch {
  name?: string;
  config?: AppConfigInput;
  source?: AppSourceInput;
}

export interface CreateGridInput {
  name: string;
  description?: string;
}

export interface ProvisionInput {
  csp?: string;
  region: string;
  zone: string;
  instanceType: string;
  count: number;
  /** Grids the servers join on arrival. */
  gridIds?: string[];
}

export interface PowerInput {
  addresses: string[];
  action: "hibernate" | "wake" | "reboot";
}

export interface DeprovisionInput {
  addresses: string[];
  /** Set only when removing these servers was asked for. */
  confirm: true;
}
