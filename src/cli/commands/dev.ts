import { z } from "zod";
import { startDev } from "../../dev/dev.ts";
import { showLiveTable } from "../../dev/live-table.ts";
import { defineCommand, port } from "../command.ts";
import { untilSignal } from "../signals.ts";

export const devCommand = defineCommand({
  name: "dev",
  summary: "run everything on this machine: control plane, simulator, CRDs, operator, samples, live status",
  flags: {
    dir: { description: "directory for the kubeconfig and logs (default .berth/dev)" },
    namespace: { description: "namespace for the samples and their credentials Secret (default berth-demo)" },
    "simulator-port": { description: "simulator port (default 8787; 0 picks a free one)" },
    "metrics-addr": {
      description: "operator metrics address (default 127.0.0.1:8080; port 0 picks a free one)",
    },
    "health-addr": {
      description: "operator health probes address (default 127.0.0.1:8081; port 0 picks a free one)",
    },
  },
  config: z.object({
    dir: z.string().min(1).default(".berth/dev"),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a namespace name")
      .default("berth-demo"),
    simulatorPort: port.default(8787),
    metricsAddr: z.string().default("127.0.0.1:8080"),
    healthAddr: z.string().default("127.0.0.1:8081"),
  }),
  async run(config, { stdout }) {
    const say = (line: string) => stdout.write(`${line}\n`);
    const started = Date.now();
    const dev = await startDev({ ...config, say });
    const header =
      `berth dev: ready in ${((Date.now() - started) / 1000).toFixed(1)}s; Ctrl-C stops everything\n` +
      `  kubectl --kubeconfig ${dev.kubeconfigPath} get berth -n ${config.namespace}\n` +
      `  simulator: ${dev.simulatorUrl}   metrics: ${dev.metricsUrl}   health: ${dev.healthUrl}\n` +
      `  operator log: ${dev.operatorLog}\n`;
    say(header);
    const stopTable = new AbortController();
    const table = showLiveTable(
      dev.kubeConfig,
      config.namespace,
      stdout,
      stopTable.signal,
      header,
      dev.runway,
    );
    await untilSignal();
    stopTable.abort();
    await table;
    say("stopping…");
    await dev.stop();
    say("stopped");
    return 0;
  },
});
