import type {
  CreateAppInput,
  CreatedApp,
  App as ServiceApp,
  AppStatus as ServiceStatus,
} from "../../hosting/index.ts";
import { emptyStatus } from "./memory.ts";

/** The app the service holds after a create: the request as sent, the answer's id, start and build. */
export function appAsCreated(created: CreatedApp, projectId: string, body: CreateAppInput): ServiceApp {
  const { config } = body;
  return {
    id: created.id,
    projectId,
    name: body.name,
    config: {
      ...(config.image === undefined ? {} : { image: config.image }),
      ports: config.ports ?? [],
      instances: config.instances ?? { min: 1, max: 1 },
      env: (config.env ?? []).map((e) => ({
        name: e.name,
        value: e.secret ? null : e.value,
        secret: e.secret === true,
      })),
      volumes: config.volumes ?? [],
      hardware: config.hardware ?? {},
      placement: config.placement ?? {},
      gridPriorities: config.gridPriorities ?? {},
      ...(config.command === undefined || config.command === null ? {} : { command: config.command }),
    },
    ...(body.source === undefined ? {} : { source: { ...body.source } }),
    ...(created.buildId === undefined ? {} : { buildId: created.buildId }),
    ...(created.start === undefined ? {} : { start: created.start }),
  };
}

/** The create answer's `start.state` stands for the status until the first read. */
export function statusAfterCreate(app: ServiceApp): ServiceStatus {
  const start = app.start?.state ?? "requested";
  const state = start === "failed" ? "start_blocked" : start;
  return {
    ...emptyStatus(),
    state,
    endpoints: app.config.ports.map(({ port, protocol }) => ({ port, protocol, address: null })),
  };
}
