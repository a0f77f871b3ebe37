import type { App, AppSpec } from "../../api/app.ts";
import { serviceName } from "../../api/common.ts";
import type { AppConfigInput, AppSourceInput, CreateAppInput } from "../../hosting/index.ts";
import { type Problem, stalledBy, waitingFor } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import type { SecretValue } from "../service/secrets.ts";

/** One env var as the service should hold it; a secret one carries a digest of its value for status. */
export interface DesiredEnv {
  name: string;
  value: string;
  secret: boolean;
  /** Keyed digest of a secret value (never the value): what status.secretDigest records. */
  digest?: string;
}

/** The app as the spec wants it at the service, with Secret and Grid references resolved. */
export interface DesiredApp {
  name: string;
  image: string | undefined;
  source: AppSourceInput | undefined;
  ports: { port: number; protocol: string }[];
  instances: { min: number; max: number };
  env: DesiredEnv[];
  volumes: Record<string, unknown>[];
  hardware: Record<string, unknown>;
  placement: Record<string, unknown>;
  gridPriorities: Record<string, number>;
  command: string[] | undefined;
}

/** The service's default instance bounds, used when the spec sets none. */
export const defaultInstances = { min: 1, max: 1 };

export interface References {
  /** A key of a Secret in the app's namespace. */
  secretValue(name: string, key: string): SecretValue;
  /** The service's ID of a Grid resource in the app's namespace, once it has one. */
  gridId(name: string): string | undefined;
  /** The keyed digest of a secret env value. */
  digest(name: string, value: string): string;
}

export type DesiredResult = { ok: true; desired: DesiredApp } | { ok: false; problem: Problem };

/**
 * The app's name at the service is `spec.displayName`, else `metadata.name`: names are unique in a
 * project, so two Apps (in two namespaces) sharing a project need distinct names.
 */
export function appName(app: App): string {
  return serviceName(app.spec.displayName, app.metadata.name);
}

export function desiredApp(app: App, refs: References): DesiredResult {
  const { spec } = app;
  const env: DesiredEnv[] = [];
  for (const entry of spec.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (ref === undefined) {
      env.push({ name: entry.name, value: entry.value ?? "", secret: false });
      continue;
    }
    const value = refs.secretValue(ref.name, ref.key);
    if (!value.ok) {
      const missing =
        value.problem === "no_secret"
          ? `Secret ${ref.name} does not exist`
          : `Secret ${ref.name} has no key "${ref.key}"`;
      return {
        ok: false,
        problem: stalledBy(
          Reason.InvalidSpec,
          `env ${entry.name}: ${missing} in namespace ${app.metadata.namespace}; create it`,
        ),
      };
    }
    env.push({
      name: entry.name,
      value: value.value,
      secret: true,
      digest: refs.digest(entry.name, value.value),
    });
  }
  const gridPriorities: Record<string, number> = {};
  for (const entry of spec.gridPriorities ?? []) {
    const id = entry.gridId ?? (entry.gridRef ? refs.gridId(entry.gridRef.name) : undefined);
    if (id === undefined) {
      return {
        ok: false,
        problem: waitingFor(Reason.GridNotReady, `waiting for Grid ${entry.gridRef?.name} to have a grid ID`),
      };
    }
    gridPriorities[id.toLowerCase()] = entry.priority;
  }
  return {
    ok: true,
    desired: {
      name: appName(app),
      image: spec.image,
      source: spec.source === undefined ? undefined : sourceOf(spec.source),
      ports: (spec.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol })),
      instances: spec.instances ?? defaultInstances,
      env,
      volumes: spec.volumes ?? [],
      hardware: spec.hardware ?? {},
      placement: spec.placement ?? {},
      gridPriorities,
      command: spec.command,
    },
  };
}

function sourceOf(source: NonNullable<AppSpec["source"]>): AppSourceInput {
  return { ...source };
}

/**
 * The create request: every config field the spec sets (secret values included, sent once). Empty
 * lists and maps are left out: their inner field names are not shown by the service's spec, so a
 * create that needs none sends none.
 */
export function createBody(desired: DesiredApp): CreateAppInput {
  const config: AppConfigInput = {
    ...(desired.image === undefined ? {} : { image: desired.image }),
    ports: desired.ports,
    instances: desired.instances,
    ...nonEmpty(
      "env",
      desired.env.map((e) => ({ name: e.name, value: e.value, secret: e.secret })),
    ),
    ...nonEmpty("volumes", desired.volumes as AppConfigInput["volumes"]),
    ...nonEmpty("hardware", desired.hardware),
    ...nonEmpty("placement", desired.placement),
    ...nonEmpty("gridPriorities", desired.gridPriorities),
    ...(desired.command === undefined ? {} : { command: desired.command }),
  };
  return { name: desired.name, config, ...(desired.source === undefined ? {} : { source: desired.source }) };
}

/** `{ [field]: value }`, or nothing for an empty list or map. */
function nonEmpty<F extends string, V>(field: F, value: V | undefined): Partial<Record<F, V>> {
  const empty =
    value === undefined ||
    (Array.isArray(value)
      ? value.length === 0
      : typeof value === "object" && value !== null && Object.keys(value).length === 0);
  return empty ? {} : ({ [field]: value } as Record<F, V>);
}
