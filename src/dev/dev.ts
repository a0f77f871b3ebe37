import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { credentials } from "../api/index.ts";
import { installCrds } from "../api/install.ts";
import { type ControlPlane, startControlPlane } from "../control-plane/control-plane.ts";
import { type RunningOperator, startOperator } from "../operator/index.ts";
import { type RunningSimulator, startSimulator } from "../simulator/index.ts";
import { createLogger } from "../telemetry/logger.ts";
import { runwayLines } from "./runway.ts";
import { applySamples } from "./samples.ts";

export interface DevOptions {
  dir: string;
  namespace: string;
  simulatorPort: number;
  metricsAddr: string;
  healthAddr: string;
  /** Progress lines for the person watching. */
  say: (line: string) => void;
}

export interface DevEnvironment {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  simulatorUrl: string;
  metricsUrl: string;
  healthUrl: string;
  operatorLog: string;
  /** One line per credential with a balance: runway, balance and spend. */
  runway(): Promise<string>;
  /** Stops the operator, the simulator and the control plane, in that order. */
  stop(): Promise<void>;
}

/**
 * Brings up everything berth needs on one machine: a control plane, the simulator, the CRDs, a
 * namespace whose `berth-credentials` Secret holds a simulator key, the operator and the samples.
 */
export async function startDev(options: DevOptions): Promise<DevEnvironment> {
  const { say } = options;
  await mkdir(options.dir, { recursive: true });
  const operatorLog = path.join(options.dir, "operator.log");
  const logger = createLogger({ level: "info", destination: createWriteStream(operatorLog) });
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };

  try {
    say("starting the control plane (the first run builds it from Go sources: minutes)…");
    const controlPlane: ControlPlane = await startControlPlane({ dir: options.dir, logger, progress: say });
    stops.push(() => controlPlane.stop());
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);

    // The samples berth dev applies use env, volumes and a repository source, whose field names the
    // spec doesn't show: the simulator accepts them only with its sample values switched on.
    const simulator: RunningSimulator = await startSimulator({
      port: options.simulatorPort,
      controlApi: true,
      profile: { base: "harsh", sampleValues: true },
    });
    stops.push(() => simulator.close());
    say(`simulator at ${simulator.baseUrl}`);

    await installCrds(kubeConfig);
    await createCredentials(kubeConfig, options.namespace, simulator);

    const registry = new Registry();
    const operator: RunningOperator = await startOperator(
      {
        namespaces: [options.namespace],
        metricsAddr: options.metricsAddr,
        // On loopback for the person at this machine: plain HTTP, so the printed URL works with curl.
        metricsSecure: false,
        healthAddr: options.healthAddr,
      },
      { logger, registry, kubeConfig },
    );
    stops.push(() => operator.stop());
    await operator.ready;
    say(`operator running (log: ${operatorLog})`);

    const applied = await applySamples(kubeConfig, options.namespace);
    say(`applied ${applied.join(", ")}`);

    return {
      kubeConfig,
      kubeconfigPath: controlPlane.kubeconfigPath,
      simulatorUrl: simulator.baseUrl,
      metricsUrl: `http://${operator.addresses.metrics ?? options.metricsAddr}/metrics`,
      healthUrl: `http://${operator.addresses.health ?? options.healthAddr}/healthz`,
      operatorLog,
      runway: () => runwayLines(registry),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    logger.flush();
  }
}

async function createCredentials(kubeConfig: KubeConfig, namespace: string, simulator: RunningSimulator) {
  if (simulator.demoKey === undefined) throw new Error("the simulator made no demo key");
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(ignoreConflict);
  await core
    .createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: credentials.defaultSecretName },
        stringData: {
          [credentials.apiKeyKey]: simulator.demoKey,
          [credentials.baseUrlKey]: simulator.baseUrl,
        },
      },
    })
    .catch(ignoreConflict);
}

function ignoreConflict(error: unknown): void {
  if ((error as { code?: number }).code !== 409) throw error;
}
