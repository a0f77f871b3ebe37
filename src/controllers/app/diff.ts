import type { AppConfigInput, AppPatch, App as ServiceApp } from "../../hosting/index.ts";
import { deepEqual } from "../../runtime/index.ts";
import type { DesiredApp, DesiredEnv } from "./desired.ts";

/** The parts of an app's config berth manages, as named in events and messages. */
export type AppField =
  | "name"
  | "image"
  | "source"
  | "ports"
  | "instances"
  | "env"
  | "volumes"
  | "hardware"
  | "placement"
  | "gridPriorities"
  | "command";

export interface AppDiff {
  /** Only what differs, following the service's PATCH rules; empty when nothing does. */
  patch: AppPatch;
  fields: AppField[];
}

/**
 * What to PATCH so the service's app matches the spec: lists (ports, env, volumes) and the grid
 * priorities map are sent whole when they differ; hardware and placement as the keys that differ
 * (null removes one the spec no longer has); instance bounds together. A secret env value is sent
 * only when its digest differs from the one applied (`applied`, from status); otherwise null keeps it.
 */
export function diffApp(
  desired: DesiredApp,
  current: ServiceApp,
  applied: ReadonlyMap<string, string>,
): AppDiff {
  const config: AppConfigInput = {};
  const fields: AppField[] = [];
  const patch: AppPatch = {};
  const have = current.config;
  if (desired.name !== current.name) {
    patch.name = desired.name;
    fields.push("name");
  }
  if (desired.image !== undefined && desired.image !== have.image) {
    config.image = desired.image;
    fields.push("image");
  }
  // Compared by the fields berth sets: the service may add fields of its own to any record.
  if (desired.source !== undefined && !deepEqual(desired.source, sourceFields(current.source))) {
    patch.source = desired.source;
    fields.push("source");
  }
  if (
    !deepEqual(
      desired.ports,
      have.ports.map(({ port, protocol }) => ({ port, protocol })),
    )
  ) {
    config.ports = desired.ports;
    fields.push("ports");
  }
  if (desired.instances.min !== have.instances.min || desired.instances.max !== have.instances.max) {
    config.instances = desired.instances;
    fields.push("instances");
  }
  if (!envMatches(desired.env, have.env, applied)) {
    config.env = envToSend(desired.env, have.env, applied);
    fields.push("env");
  }
  if (
    !deepEqual(
      desired.volumes,
      have.volumes.map(({ name, mountPath, sizeGb }) => ({ name, mountPath, sizeGb })),
    )
  ) {
    config.volumes = desired.volumes as AppConfigInput["volumes"];
    fields.push("volumes");
  }
  const hardware = keyChanges(desired.hardware, have.hardware);
  if (hardware !== undefined) {
    config.hardware = hardware;
    fields.push("hardware");
  }
  const placement = keyChanges(desired.placement, have.placement);
  if (placement !== undefined) {
    config.placement = placement;
    fields.push("placement");
  }
  if (!deepEqual(desired.gridPriorities, lowerKeys(have.gridPriorities))) {
    config.gridPriorities = desired.gridPriorities;
    fields.push("gridPriorities");
  }
  if (!deepEqual(desired.command ?? null, have.command ?? null)) {
    config.command = desired.command ?? null;
    fields.push("command");
  }
  if (Object.keys(config).length > 0) patch.config = config;
  return { patch, fields };
}

type ServiceEnv = ServiceApp["config"]["env"][number];

function sourceFields(source: ServiceApp["source"]) {
  if (source === undefined) return undefined;
  const { provider, repository, branch, path } = source;
  return { provider, repository, branch, ...(path === undefined ? {} : { path }) };
}

function envMatches(
  desired: readonly DesiredEnv[],
  have: readonly ServiceEnv[],
  applied: ReadonlyMap<string, string>,
): boolean {
  return (
    desired.length === have.length &&
    desired.every((want, i) => {
      const got = have[i];
      if (got === undefined || got.name !== want.name || got.secret !== want.secret) return false;
      return want.secret ? applied.get(want.name) === want.digest : got.value === want.value;
    })
  );
}

function envToSend(
  desired: readonly DesiredEnv[],
  have: readonly ServiceEnv[],
  applied: ReadonlyMap<string, string>,
): NonNullable<AppConfigInput["env"]> {
  return desired.map((want) => {
    const kept =
      want.secret &&
      applied.get(want.name) === want.digest &&
      have.some((got) => got.name === want.name && got.secret);
    return { name: want.name, value: kept ? null : want.value, secret: want.secret };
  });
}

/** Keys whose value differs (set) or that the spec dropped (null); undefined when none. */
function keyChanges(
  desired: Record<string, unknown>,
  have: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(desired)) {
    if (!deepEqual(value, have[key])) changes[key] = value;
  }
  for (const key of Object.keys(have)) {
    if (!(key in desired)) changes[key] = null;
  }
  return Object.keys(changes).length === 0 ? undefined : changes;
}

function lowerKeys(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key.toLowerCase(), value]));
}
