import type { App, AppSpec } from "../../api/app.ts";
import { finalizer } from "../../api/meta.ts";
import type { Build, Me, App as ServiceApp, AppStatus as ServiceStatus } from "../../hosting/index.ts";
import type { PollIntervals } from "../service/deps.ts";
import { type DesiredApp, desiredApp } from "./desired.ts";
import {
  type AppKnowledge,
  type AppObserved,
  type ExternalApp,
  newAppMemory,
  noReads,
  unknownExternal,
} from "./memory.ts";
import { secretDigest } from "./secret-digest.ts";

// Builders for the App controller's unit tests (not shipped behaviour).

export const projectId = "a".repeat(24);
export const appId = "b".repeat(24);
export const polls: PollIntervals = {
  startingMs: 4000,
  wiringMs: 2000,
  stoppingMs: 2000,
  buildingMs: 5000,
  waitingMs: 60_000,
};
export const now = new Date("2030-01-01T00:00:00Z");

export function anApp(
  spec: Partial<AppSpec> = {},
  extra: { status?: App["status"]; metadata?: Partial<App["metadata"]> } = {},
): App {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: {
      name: "web",
      namespace: "team",
      uid: "uid-1",
      generation: 1,
      finalizers: [finalizer],
      creationTimestamp: "2029-12-31T23:59:00Z",
      ...extra.metadata,
    },
    spec: {
      projectId,
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
      stopped: false,
      deletionPolicy: "Delete",
      suspend: false,
      ...spec,
    },
    ...(extra.status === undefined ? {} : { status: extra.status }),
  };
}

export function me(scopes: string[] = ["*"], projectIds: string[] = []): Me {
  return {
    user: { id: "u1", email: "u@example.test" },
    apiKey: { id: "k1", scopes, projectIds, expiresAt: null },
    oauthClient: null,
  };
}

/** `status.secretDigest` for one secret env var, as the builders compute it. */
export function appliedDigest(name: string, value: string): string {
  return `${name}:${secretDigest("test-key", name, value)}`;
}

export function desiredOf(app: App, secrets: Record<string, string> = {}): DesiredApp {
  const result = desiredApp(app, {
    secretValue: (name, key) => {
      const value = secrets[`${name}/${key}`];
      return value === undefined ? { ok: false, problem: "no_secret" } : { ok: true, value };
    },
    gridId: () => undefined,
    digest: (name, value) => secretDigest("test-key", name, value),
  });
  if (!result.ok) throw new Error(result.problem.message);
  return result.desired;
}

/** The service's copy of an app made from `desired` (secret values read back as null). */
export function serviceApp(desired: DesiredApp, overrides: Partial<ServiceApp["config"]> = {}): ServiceApp {
  return {
    id: appId,
    projectId,
    name: desired.name,
    config: {
      ...(desired.image === undefined ? {} : { image: desired.image }),
      ports: desired.ports,
      instances: desired.instances,
      env: desired.env.map((e) => ({ name: e.name, value: e.secret ? null : e.value, secret: e.secret })),
      volumes: desired.volumes as ServiceApp["config"]["volumes"],
      hardware: desired.hardware,
      placement: desired.placement,
      gridPriorities: desired.gridPriorities,
      ...(desired.command === undefined ? {} : { command: desired.command }),
      ...overrides,
    },
    ...(desired.source === undefined ? {} : { source: { ...desired.source }, buildId: "bld_1" }),
    createdAt: "2030-01-01T00:00:00Z",
    updatedAt: "2030-01-01T00:00:00Z",
  };
}

export function serviceStatus(
  state: ServiceStatus["state"],
  extra: Partial<ServiceStatus> = {},
): ServiceStatus {
  const wired = state === "running";
  return {
    state,
    targetState: state === "stopped" || state === "stopping" ? "stopped" : "running",
    nodes: state === "running" ? [{ id: "n1", state: "running" }] : [],
    errors: [],
    endpoints: [
      { port: 80, protocol: "http80_load_balancer", address: wired ? "https://web-bbbbbbbb.apps.sim" : null },
    ],
    ...extra,
  };
}

export function build(state: Build["state"], extra: Partial<Build> = {}): Build {
  return {
    id: "bld_1",
    appId,
    projectId,
    state,
    failedStep: state === "failed" ? "install" : null,
    createdAt: "2030-01-01T00:00:00Z",
    finishedAt: state === "succeeded" || state === "failed" ? "2030-01-01T00:00:08Z" : null,
    pollAfterSec: state === "succeeded" || state === "failed" ? null : 3,
    ...extra,
  };
}

export function observed(
  app: App,
  external: Partial<ExternalApp> = {},
  extra: Partial<AppObserved> = {},
): AppObserved {
  return {
    problem: undefined,
    me: me(),
    projectId,
    desired: extra.desired ?? desiredOf(app),
    external: { ...unknownExternal(), ...external },
    claims: {},
    appliedSecrets: app.status?.secretDigest,
    requestId: "req_1",
    ...extra,
  };
}

/** What a reconcile knows: `observed` plus fresh memory, nothing read or changed by a call yet. */
export function knowledgeOf(
  app: App,
  external: Partial<ExternalApp> = {},
  extra: Partial<AppKnowledge> = {},
): AppKnowledge {
  const seen = observed(app, external);
  return {
    ...newAppMemory(),
    ...seen,
    refusedCreates: 0,
    reads: noReads,
    changedByCall: { status: false, build: false },
    ...extra,
  };
}
