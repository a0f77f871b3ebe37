import { rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { createLogger } from "../../src/telemetry/logger.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
  }
}

let controlPlane: ControlPlane | undefined;
const dir = path.resolve(".berth", `test-cluster-${process.pid}`);

/** One real control plane per integration run; a failure to start fails the run, never skips it. */
export async function setup(project: TestProject): Promise<void> {
  controlPlane = await startControlPlane({ dir, logger: createLogger({ level: "warn" }) });
  project.provide("kubeconfigPath", controlPlane.kubeconfigPath);
}

export async function teardown(): Promise<void> {
  await controlPlane?.stop();
  await rm(dir, { recursive: true, force: true });
}
