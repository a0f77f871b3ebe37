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
const say = (line: string) => process.stderr.write(`${line}\n`);

/** One real control plane per integration run, built on first use; a failure fails the run, never skips it. */
export async function setup(project: TestProject): Promise<void> {
  controlPlane = await startControlPlane({ dir, logger: createLogger({ level: "warn" }), progress: say });
  project.provide("kubeconfigPath", controlPlane.kubeconfigPath);
}

export async function teardown(): Promise<void> {
  await controlPlane?.stop();
  await rm(dir, { recursive: true, force: true });
}
