import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, pino } from "pino";
import type { z } from "zod";
import { controlRoutes } from "./control/routes.ts";
import { SimControl } from "./control/sim-control.ts";
import { createRequestListener } from "./http/handler.ts";
import { issuesToDetails } from "./http/inputs.ts";
import { Router } from "./http/router.ts";
import { IdSource } from "./ids.ts";
import { simulatorOptionsSchema } from "./options.ts";
import { routes } from "./routes/index.ts";
import { createWorld } from "./store/bootstrap.ts";
import type { WorldConfig } from "./store/world.ts";

export type SimulatorOptions = z.input<typeof simulatorOptionsSchema> & { logger?: Logger };

export interface RunningSimulator {
  /** `http://host:port/v1` */
  baseUrl: string;
  /** `http://host:port/_sim` (served only with `controlApi: true`) */
  controlUrl: string;
  /** The full-access demo key, present when no seed was given. */
  demoKey: string | undefined;
  /** In-process control: the same operations as the /_sim HTTP API. */
  sim: SimControl;
  close(): Promise<void>;
}

export class SimulatorError extends Error {
  readonly code: "invalid_options" | "listen_failed";

  constructor(code: SimulatorError["code"], message: string) {
    super(message);
    this.name = "SimulatorError";
    this.code = code;
  }
}

/** Starts the hosting API simulator on `host:port` (port 0 picks a free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const { logger: givenLogger, ...rest } = options;
  const parsed = simulatorOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const problems = issuesToDetails(parsed.error.issues).map((d) => `${d.path}: ${d.message}`);
    throw new SimulatorError("invalid_options", `invalid simulator options: ${problems.join("; ")}`);
  }
  const config = parsed.data;
  const logger = givenLogger ?? pino({ level: "silent" });
  const worldConfig: WorldConfig = {
    clock: { ...config.clock, speed: config.clockSpeed },
    idSeed: config.idSeed,
    timings: config.timings,
    rateLimits: config.rateLimits,
    profile: config.profile,
  };
  // The demo token survives resets, so the key printed at start keeps working.
  const demoKey =
    config.seed === undefined ? `bsk_${new IdSource(config.idSeed).hex("demo", 40)}` : undefined;
  const holder = { world: createWorld(worldConfig, config.seed, demoKey) };
  const sim = new SimControl(holder, worldConfig, config.seed, demoKey);
  const server = createServer(
    createRequestListener({
      holder,
      api: new Router(routes),
      control: config.controlApi ? { router: new Router(controlRoutes), sim } : undefined,
      logger,
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new SimulatorError(
          "listen_failed",
          `cannot listen on ${config.host}:${config.port}: ${error.message}`,
        ),
      ),
    );
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const origin = `http://${host}:${port}`;
  logger.info({ baseUrl: `${origin}/v1`, controlApi: config.controlApi }, "simulator listening");
  return {
    baseUrl: `${origin}/v1`,
    controlUrl: `${origin}/_sim`,
    demoKey,
    sim,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
