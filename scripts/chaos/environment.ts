import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { installCrds } from "../../src/api/install.ts";
import type { Logger } from "../../src/telemetry/logger.ts";
import { Cluster } from "./cluster.ts";
import type { StoredSecret } from "./faults.ts";
import { type NamespacePlan, refSecretName } from "./plan.ts";
import { type OperatorCommand, RestartableControlPlane } from "./processes.ts";
import { SimulatorProcess } from "./simulator.ts";

/** Where the operator's default credentials live (`--default-credentials`). */
export const defaultSecret = { namespace: "berth-system", name: "berth-default" };

export const namespaces: NamespacePlan[] = [
  { name: "chaos-a", credentials: "own" },
  { name: "chaos-b", credentials: "ref" },
  { name: "chaos-c", credentials: "default" },
];

/** The Secret of each namespace's credential style. */
export function secretOf(ns: NamespacePlan): { namespace: string; name: string } {
  switch (ns.credentials) {
    case "own":
      return { namespace: ns.name, name: "berth-credentials" };
    case "ref":
      return { namespace: ns.name, name: refSecretName };
    case "default":
      return defaultSecret;
  }
}

export interface Environment {
  dir: string;
  controlPlane: RestartableControlPlane;
  simulator: SimulatorProcess;
  cluster: Cluster;
  userId: string;
  /** Another user of the service: a key of theirs is put into a Secret mid-order (credentials rotated to the wrong user). */
  otherUserId: string;
  /** The suite's own keys, one per user, for reading the service (never given to the operator). */
  checkerTokens: string[];
  secrets: Map<string, StoredSecret>;
  tokens: string[];
  close(keep: boolean): Promise<void>;
}

/** A control plane with the CRDs, the simulator, a user with a key per credentials Secret (and another user), and the namespaces. */
export async function startEnvironment(clockSpeed: number, logger: Logger): Promise<Environment> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-chaos-"));
  const controlPlane = await RestartableControlPlane.start(dir, logger);
  const simulator = await SimulatorProcess.start(clockSpeed);
  // The harsh profile, with its samples accepted: the spec shows an app's hardware and volumes but
  // not their fields, and the load resizes apps (GPUs, memory) and gives them volumes.
  await simulator.setProfile({ base: "harsh", sampleValues: true });
  const cluster = new Cluster(controlPlane.kubeconfigPath);
  await installCrds(cluster.config);
  const userId = await simulator.addUser("chaos@example.test", 1_000_000);
  const otherUserId = await simulator.addUser("chaos-other@example.test", 1_000_000);
  const checkerTokens = [(await simulator.addKey(userId)).token, (await simulator.addKey(otherUserId)).token];
  const tokens = [...checkerTokens];
  const secrets = new Map<string, StoredSecret>();
  for (const name of [defaultSecret.namespace, ...namespaces.map((n) => n.name)])
    await cluster.createNamespace(name);
  for (const ns of namespaces) {
    const ref = secretOf(ns);
    const key = await simulator.addKey(userId);
    tokens.push(key.token);
    const data = { apiKey: key.token, baseUrl: simulator.baseUrl };
    secrets.set(`${ref.namespace}/${ref.name}`, { data, keyId: key.id });
    await cluster.putSecret(ref.namespace, ref.name, data);
  }
  return {
    dir,
    controlPlane,
    simulator,
    cluster,
    userId,
    otherUserId,
    checkerTokens,
    secrets,
    tokens,
    async close(keep) {
      await cluster.close();
      await simulator.stop();
      await controlPlane.stop();
      if (!keep) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The chaos operator's timeout for calls that change something (the client's default is 30 s):
 * below most gaps between SIGKILLs, so latency past it is seen as a timeout, not only as a kill.
 */
export const chaosWriteTimeoutMs = 4000;

/**
 * A ServerOrder's settled orders with no server left fold out of its status at once (not a day
 * later), bound only by the calls still open: the simulator's clock runs ahead, so its orders look
 * made in the future.
 */
export const chaosFoldAfterMs = -24 * 3_600_000;
/** The client's own timeout for writes, which `berth operator` (`--operator cli`) keeps. */
export const defaultWriteTimeoutMs = 30_000;

/** The write timeout the operator of this kind runs with. */
export function writeTimeoutOf(kind: "scaled" | "cli"): number {
  return kind === "cli" ? defaultWriteTimeoutMs : chaosWriteTimeoutMs;
}

/** How to start the operator: the chaos launcher with scaled timings, or `berth operator` itself. */
export function operatorCommand(
  kind: "scaled" | "cli",
  kubeconfigPath: string,
  clockSpeed: number,
  logLevel = "info",
): OperatorCommand {
  const flags = [
    "--kubeconfig",
    kubeconfigPath,
    ...namespaces.flatMap((n) => ["--namespace", n.name]),
    "--default-credentials",
    `${defaultSecret.namespace}/${defaultSecret.name}`,
    "--metrics-addr",
    "",
    "--health-addr",
    "",
    "--log-level",
    logLevel,
  ];
  if (kind === "cli") return { args: ["src/main.ts", "operator", ...flags], env: process.env };
  const drift = `${Math.max(1, Math.round(600 / clockSpeed))}s`;
  return {
    args: ["scripts/chaos/operator-main.ts", ...flags, "--drift-interval", drift],
    env: {
      ...process.env,
      CHAOS_CLOCK_SPEED: String(clockSpeed),
      CHAOS_WRITE_TIMEOUT_MS: String(chaosWriteTimeoutMs),
      CHAOS_FOLD_AFTER_MS: String(chaosFoldAfterMs),
    },
  };
}
