// Runs as a short-lived child process (see kubeconfig.ts): loads a kubeconfig with client-node (every
// auth method: tokens, token files, client certificates, exec plugins, auth providers, in-cluster
// service accounts), computes the connection settings of its current context, sends them to its
// parent and exits. client-node's module graph (~90 MB resident) lives and dies with this process;
// a worker thread would leave some 25 MB of it behind in the operator.
import { existsSync, readFileSync } from "node:fs";
import type { RequestOptions as HttpsRequestOptions } from "node:https";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { fromHttpsOptions } from "./connection.ts";
import { type LoadedKubeconfig, type LoadRequest, loadRequestSchema } from "./kubeconfig-protocol.ts";

/** Where a pod's service-account token is mounted: client-node's sign of running in a cluster. */
const serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token";

async function load(request: LoadRequest): Promise<LoadedKubeconfig> {
  const files = request.path !== undefined ? [request.path] : defaultFiles();
  // A kubeconfig's `token-file` client-node reads once (relative to the working directory, not to the
  // file as kubectl does): made absolute here, and re-read by the operator as it rotates. Read before
  // client-node is imported (a second of CPU), so a missing or broken file is told at once.
  const tokenFiles = new Map<string, string>();
  const parsed = files.map((file) => withAbsoluteTokenFiles(file, tokenFiles));
  const { KubeConfig } = await import("@kubernetes/client-node");
  const config = new KubeConfig();
  if (request.inClusterPrefix !== undefined) config.loadFromCluster(request.inClusterPrefix);
  else if (files.length === 0 && !existsSync(serviceAccountToken)) {
    // client-node would fall back to http://localhost:8080 and fail later with a riddle.
    throw new Error(
      "none found: pass --kubeconfig FILE (or BERTH_KUBECONFIG), set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account",
    );
  } else if (files.length === 0) config.loadFromDefault();
  files.forEach((file, i) => {
    const one = i === 0 ? config : new KubeConfig();
    one.loadFromString(stringifyYaml(parsed[i]));
    one.makePathsAbsolute(path.dirname(file));
    if (one !== config) config.mergeConfig(one);
  });
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error("the kubeconfig has no current cluster with a server address");
  const options: HttpsRequestOptions = {};
  await config.applyToHTTPSOptions(options);
  const user = config.getCurrentUser();
  // In-cluster, client-node's "tokenFile" auth provider re-reads the file; the operator does it itself.
  const providerFile = user?.authProvider?.config?.tokenFile;
  const tokenFile = typeof providerFile === "string" ? providerFile : tokenFiles.get(user?.name ?? "");
  return { server, ...fromHttpsOptions(options), ...(tokenFile === undefined ? {} : { tokenFile }) };
}

/** client-node's default files: those $KUBECONFIG lists, else ~/.kube/config if it exists (else in-cluster). */
function defaultFiles(): string[] {
  if (process.env.KUBECONFIG) return process.env.KUBECONFIG.split(path.delimiter).filter(Boolean);
  const home = path.join(os.homedir(), ".kube", "config");
  return existsSync(home) ? [home] : [];
}

/** The file's kubeconfig with each user's `token-file` absolute, noting them by user name. */
function withAbsoluteTokenFiles(file: string, tokenFiles: Map<string, string>): unknown {
  const parsed: unknown = parseYaml(readFileSync(file, "utf8"));
  const users = (parsed as { users?: unknown } | null)?.users;
  for (const entry of Array.isArray(users) ? users : []) {
    const { name, user } = (entry ?? {}) as { name?: unknown; user?: Record<string, unknown> };
    const tokenFile = user?.["token-file"];
    if (typeof name !== "string" || typeof tokenFile !== "string" || tokenFile === "" || user === undefined)
      continue;
    user["token-file"] = path.resolve(path.dirname(file), tokenFile);
    if (!tokenFiles.has(name)) tokenFiles.set(name, user["token-file"] as string);
  }
  return parsed;
}

if (process.send !== undefined) {
  const reply = (message: unknown) => process.send?.(message, () => process.exit(0));
  load(loadRequestSchema.parse(JSON.parse(process.argv[2] ?? "{}"))).then(
    (loaded) => reply({ ok: true, loaded }),
    (error: unknown) => reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
}
