import { rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { installMissingTools } from "./tools.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
  }
}

let controlPlane: ControlPlane | undefined;
const dir = path.resolve(".berth", `test-cluster-${process.pid}`);
const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * One real control plane per integration run, and the tools the deploy tests run (helm, promtool),
 * both built on first use; a failure fails the run, never skips it.
 */
export async function setup(project: TestProject): Promise<void> {
  const [cluster, tools] = await Promise.allSettled([
    startControlPlane({ dir, logger: createLogger({ level: "warn" }), progress: say }),
    installMissingTools(say),
  ]);
  if (cluster.status === "fulfilled") controlPlane = cluster.value;
  if (cluster.status === "rejected") throw cluster.reason;
  if (tools.status === "rejected") {
    await teardown();
    throw tools.reason;
  }
  project.provide("kubeconfigPath", cluster.value.kubeconfigPath);
}

export async function teardown(): Promise<void> {
  await controlPlane?.stop();
  await rm(dir, { recursive: true, force: true });
}
