import { type ErrorDetail, validationFailed } from "../errors.ts";
import { fingerprint } from "../idempotency.ts";
import type { UpdateAppInput } from "../routes/app-schemas.ts";
import type { AppConfig, EnvVar, Source } from "../store/records.ts";

export interface UpdatePlan {
  name: string;
  config: AppConfig;
  source: Source | undefined;
  /** Which parts differ from what is stored, for scope, role and redeploy decisions. */
  changed: { config: boolean; ports: boolean; compute: boolean; gridPriorities: boolean; source: boolean };
}

/**
 * The service's PATCH rules: lists (ports, env, volumes) and the grid-priority map are replaced
 * whole, hardware and placement merge by key (null removes a key), instance bounds come together
 * (checked by the schema), and a null secret value keeps the stored secret.
 */
export function planUpdate(
  current: { name: string; config: AppConfig; source?: Source | undefined },
  input: UpdateAppInput,
): UpdatePlan {
  const details: ErrorDetail[] = [];
  const patch = input.config ?? {};
  if (patch.image !== undefined && current.source !== undefined) {
    details.push({ path: "config.image", message: "a repository app has no image; change source instead" });
  }
  if (input.source !== undefined && current.source === undefined) {
    details.push({ path: "source", message: "an image app has no source; change config.image instead" });
  }
  const env = patch.env === undefined ? current.config.env : mergeEnv(current.config.env, patch.env, details);
  if (details.length > 0) throw validationFailed(details);

  const config: AppConfig = {
    ...current.config,
    ...(patch.image === undefined ? {} : { image: patch.image }),
    ports: patch.ports ?? current.config.ports,
    instances:
      patch.instances?.min !== undefined && patch.instances.max !== undefined
        ? { min: patch.instances.min, max: patch.instances.max }
        : current.config.instances,
    env,
    volumes: patch.volumes ?? current.config.volumes,
    hardware: mergeByKey(current.config.hardware, patch.hardware),
    placement: mergeByKey(current.config.placement, patch.placement),
    gridPriorities: patch.gridPriorities ?? current.config.gridPriorities,
  };
  if (patch.command === null) delete config.command;
  else if (patch.command !== undefined) config.command = patch.command;
  const source = input.source ?? current.source;

  const differs = (a: unknown, b: unknown) => fingerprint(a ?? null) !== fingerprint(b ?? null);
  const sourceChanged = differs(source, current.source);
  return {
    name: input.name ?? current.name,
    config,
    source,
    changed: {
      config: differs(config, current.config),
      ports: differs(config.ports, current.config.ports),
      compute:
        sourceChanged ||
        differs(config.hardware, current.config.hardware) ||
        differs(config.instances, current.config.instances) ||
        differs(config.volumes, current.config.volumes),
      gridPriorities: differs(config.gridPriorities, current.config.gridPriorities),
      source: sourceChanged,
    },
  };
}

function mergeEnv(
  stored: readonly EnvVar[],
  given: readonly { name: string; value: string | null; secret: boolean }[],
  details: ErrorDetail[],
): EnvVar[] {
  return given.map((entry, i) => {
    if (entry.value !== null) return { name: entry.name, value: entry.value, secret: entry.secret };
    const kept = stored.find((e) => e.name === entry.name && e.secret);
    if (!entry.secret || kept === undefined) {
      details.push({
        path: `config.env[${i}].value`,
        message: `null keeps a stored secret, and ${entry.name} has none; send its value`,
      });
      return { name: entry.name, value: "", secret: entry.secret };
    }
    return { ...kept };
  });
}

function mergeByKey<T extends object>(stored: T, patch: { [K in keyof T]?: T[K] | null } | undefined): T {
  if (patch === undefined) return stored;
  const merged = { ...stored } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged as T;
}
