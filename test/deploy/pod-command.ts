import { spawn } from "node:child_process";
import { type OperatorProcess, processOf } from "../support/operator-process.ts";
import type { Manifest } from "./helpers.ts";

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
}

/** `$(NAME)` of a variable defined before, as the kubelet expands it; others stay as written. */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
}

/**
 * The operator container's environment and arguments as the kubelet gives them to a pod in
 * `podNamespace`: literal values and the namespace field; any other source is refused, so a new one
 * fails here rather than being skipped.
 */
export function podCommand(
  deployment: Manifest,
  podNamespace: string,
): { args: string[]; env: Record<string, string> } {
  const spec = deployment.spec as { template: { spec: { containers: Container[] } } };
  const container = spec.template.spec.containers.find((c) => c.name === "operator");
  if (container === undefined) throw new Error(`${deployment.metadata.name} has no operator container`);
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = expand(variable.value, env);
    else if (variable.valueFrom?.fieldRef?.fieldPath === "metadata.namespace")
      env[variable.name] = podNamespace;
    else
      throw new Error(
        `env ${variable.name}: a source this test does not resolve (${JSON.stringify(variable)})`,
      );
  }
  return { args: (container.args ?? []).map((arg) => expand(arg, env)), env };
}

/**
 * Starts `node <main> <command> <the Deployment's args> <extraArgs>` with the container's
 * environment plus PATH and NODE_ENV=production (the image's), none of the test shell's BERTH_*.
 */
export function spawnFromDeployment(
  deployment: Manifest,
  options: { main: string; command: string[]; podNamespace: string; extraArgs: string[] },
): OperatorProcess {
  const { args, env } = podCommand(deployment, options.podNamespace);
  const child = spawn(process.execPath, [options.main, ...options.command, ...args, ...options.extraArgs], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOf(child);
}
