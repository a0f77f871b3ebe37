import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseAllDocuments, stringify } from "yaml";
import { kubeconfigPath } from "../support/kube.ts";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const deployPath = (...parts: string[]) => path.join(repoRoot, "deploy", ...parts);

const execFileAsync = promisify(execFile);

export interface Output {
  stdout: string;
  stderr: string;
}

/** Runs a program; a non-zero exit rejects with its stderr in the message (and its output on the error). */
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
    throw Object.assign(
      new Error(`${command} ${args.join(" ")} failed: ${failure.message}\n${failure.stderr ?? ""}`),
      { stdout: failure.stdout ?? "", stderr: failure.stderr ?? "" },
    );
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

/** The base URL the deploy tests install with (each overlay's hosting.env, the chart's hostingBaseUrl). */
export const testHostingBaseUrl = "https://hosting.test/v1";

/**
 * A copy of deploy/ in a temporary folder, with `hostingEnv` (null: none) as the hosting.env
 * of each overlay, as a user writes it before applying one; removed after `use`.
 */
export async function withHostingEnv<T>(
  hostingEnv: string | null,
  use: (deployCopy: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "berth-deploy-"));
  try {
    await cp(deployPath(), dir, { recursive: true });
    if (hostingEnv !== null) {
      for (const overlay of await readdir(path.join(dir, "overlays"))) {
        await writeFile(path.join(dir, "overlays", overlay, "hosting.env"), hostingEnv);
      }
    }
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `kubectl kustomize` of a folder under deploy/, as the objects it renders; an overlay with
 * `hostingEnv` as its hosting.env (null: none; by default, BERTH_HOSTING_BASE_URL=testHostingBaseUrl).
 */
export async function render(
  folder: string,
  hostingEnv: string | null = `BERTH_HOSTING_BASE_URL=${testHostingBaseUrl}\n`,
): Promise<{ yaml: string; objects: Manifest[] }> {
  const { stdout } = await withHostingEnv(hostingEnv, (copy) =>
    run("kubectl", ["kustomize", path.join(copy, folder)]),
  );
  return { yaml: stdout, objects: parseAllDocuments(stdout).map((document) => document.toJS() as Manifest) };
}

export function findObject(objects: Manifest[], kind: string, name?: string): Manifest {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found === undefined) throw new Error(`no ${kind}${name ? ` ${name}` : ""} among the rendered objects`);
  return found;
}

/** A server-side dry-run apply, as the deploy tests' one field manager (so their objects never conflict). */
export function dryRunApply(yaml: string): Promise<Output> {
  return kubectl(
    ["apply", "--server-side", "--dry-run=server", "--field-manager=berth-deploy-test", "-f", "-"],
    yaml,
  );
}

/** Creates or updates objects for real (server-side apply), e.g. a namespace other objects need. */
export async function applyForReal(yaml: string): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=berth-deploy-test", "-f", "-"], yaml);
}

/**
 * `kubectl kustomize` of a folder under deploy/ moved into `namespace` the way docs/guides/namespaced.md
 * tells users to (a NamespaceTransformer that also moves the bindings' subjects).
 */
/**
 * The folder under an overlay of one's own that moves it to `namespace`; `perInstall` also names its
 * cluster-scoped objects after the namespace, as docs/guides/namespaced.md tells a second install to.
 */
export async function renderInNamespace(
  folder: string,
  namespace: string,
  perInstall = false,
): Promise<Manifest[]> {
  return withHostingEnv(`BERTH_HOSTING_BASE_URL=${testHostingBaseUrl}\n`, (deployCopy) =>
    renderCopyInNamespace(deployCopy, folder, namespace, perInstall),
  );
}

async function renderCopyInNamespace(
  deployCopy: string,
  folder: string,
  namespace: string,
  perInstall: boolean,
): Promise<Manifest[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "berth-kustomize-"));
  try {
    const suffix = {
      apiVersion: "builtin",
      kind: "PrefixSuffixTransformer",
      metadata: { name: "per-install" },
      suffix: `-${namespace}`,
      fieldSpecs: [
        { kind: "ClusterRole", path: "metadata/name" },
        { kind: "ClusterRoleBinding", path: "metadata/name" },
      ],
    };
    const kustomization = {
      resources: [path.relative(dir, path.join(deployCopy, folder))],
      transformers: [
        stringify({
          apiVersion: "builtin",
          kind: "NamespaceTransformer",
          metadata: { name: "namespace", namespace },
          setRoleBindingSubjects: "allServiceAccounts",
        }),
        ...(perInstall ? [stringify(suffix)] : []),
      ],
    };
    await writeFile(path.join(dir, "kustomization.yaml"), stringify(kustomization));
    const { stdout } = await run("kubectl", ["kustomize", dir]);
    return parseAllDocuments(stdout).map((document) => document.toJS() as Manifest);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A GET of berth's metrics endpoint (self-signed HTTPS, or plain HTTP), with an optional bearer token. */
export function scrape(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const get = url.startsWith("https:") ? httpsGet : httpGet;
    get(url, { headers, rejectUnauthorized: false }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    }).on("error", reject);
  });
}

/** A ServiceAccount token (for the metrics endpoint, say). */
export async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  return (await kubectl(["create", "token", name, "-n", namespace])).stdout.trim();
}
