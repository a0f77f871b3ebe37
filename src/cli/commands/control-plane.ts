import { z } from "zod";
import { startControlPlane } from "../../control-plane/control-plane.ts";
import { createLogger } from "../../telemetry/logger.ts";
import { defineCommand } from "../command.ts";
import { untilSignal } from "../signals.ts";

export const controlPlaneCommand = defineCommand({
  name: "control-plane",
  summary: "run a local kube-apiserver with embedded etcd and write its kubeconfig",
  flags: {
    dir: { description: "directory for the kubeconfig and the control plane's log (default .berth/cluster)" },
    "log-level": { description: "log level: debug, info, warn, error (default info)" },
  },
  config: z.object({
    dir: z.string().min(1).default(".berth/cluster"),
    logLevel: z.enum(["debug", "info", "warn", "error"]).default("info"),
  }),
  async run(config, { stdout }) {
    const logger = createLogger({ level: config.logLevel });
    const started = Date.now();
    const controlPlane = await startControlPlane({ dir: config.dir, logger });
    stdout.write(
      `control plane ready in ${((Date.now() - started) / 1000).toFixed(1)}s at ${controlPlane.server}\n` +
        `kubeconfig: ${controlPlane.kubeconfigPath}\n` +
        `try: kubectl --kubeconfig ${controlPlane.kubeconfigPath} get namespaces\n`,
    );
    const reason = await untilSignal(controlPlane.exited);
    await controlPlane.stop();
    stdout.write("control plane stopped\n");
    return reason === "exited" ? 1 : 0;
  },
});
