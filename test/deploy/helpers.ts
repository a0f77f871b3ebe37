import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { kubeconfigPath } from "../support/kube.ts";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const deployPath = (...parts: string[]) => path.join(repoRoot, "deploy", ...parts);

const execFileAsync = promisify(execFile);

export interface Output {
  stdout: string;
  stderr: string;
}

/** Runs a program; a non-zero exit rejects with its stderr in the message. */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<Output> {
  const child = execFileAsync(command, args, {
    cwd: options.cwd,
    env: options.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (options.input !== undefined) {
    child.child.stdin?.end(options.input);
  }
  try {
    return await child;
  } catch (error) {
    const failure = error as Error & Partial<Output>;
    throw new Error(`${command} ${args.join(" ")} failed: ${failure.message}\n${failure.stderr ?? ""}`);
  }
}

/** kubectl against the test run's control plane. */
export function kubectl(args: string[], input?: string): Promise<Output> {
  return run("kubectl", ["--kubeconfig", kubeconfigPath(), ...args], { input });
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** `kubectl kustomize` of a folder under deploy/, as the objects it renders. */
export async function render(folder: string): Promise<{ yaml: string; objects: Manifest[] }> {
  const { stdout } = await run("kubectl", ["kustomize", deployPath(folder)]);
  return { yaml: stdout, objects: parseAllDocuments(stdout).map((document) => document.toJS() as Manifest) };
}

export function findObject(objects: Manifest[], kind: string, name?: string): Manifest {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found === undefined) throw new Error(`no ${kind}${name ? ` ${name}` : ""} among the rendered objects`);
  return found;
}

/** Creates or updates objects for real (server-side apply), e.g. a namespace other objects need. */
export async function applyForReal(yaml: string): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=berth-deploy-test", "-f", "-"], yaml);
}
