import { KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import { defineCommand, UsageError } from "../command.ts";
import { parseTarget, TraceReader } from "../trace/fetch.ts";
import { renderTree } from "../trace/render.ts";
import { buildTrace } from "../trace/tree.ts";

export const traceCommand = defineCommand({
  name: "trace",
  summary:
    "show a resource and what depends on it (Project → Apps, Grid → ServerOrders → servers, SpendLimit → refused and committed resources), one line each",
  positionals: "<kind>/<name>",
  flags: {
    namespace: {
      description: "namespace of the resource (default: the kubeconfig context's, else default)",
      short: "n",
    },
    output: { description: "tree (default) or json", short: "o" },
    kubeconfig: { description: "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)" },
  },
  config: z.object({
    args: z.array(z.string()).max(1, "give one <kind>/<name>"),
    namespace: z.string().min(1).optional(),
    output: z.enum(["tree", "json"]).default("tree"),
    kubeconfig: z.string().min(1).optional(),
  }),
  async run(config, { stdout }) {
    const { names, name } = parseTarget(config.args[0]);
    const kubeConfig = new KubeConfig();
    try {
      if (config.kubeconfig === undefined) kubeConfig.loadFromDefault();
      else kubeConfig.loadFromFile(config.kubeconfig);
    } catch (error) {
      throw new UsageError(
        `cannot read the kubeconfig: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const namespace =
      config.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? "default";
    const reader = new TraceReader(kubeConfig);
    const [root, inputs] = await Promise.all([reader.get(names, namespace, name), reader.inputs(namespace)]);
    const tree = buildTrace(root, { ...inputs, claimants: await reader.claimants(names, root) });
    stdout.write(
      config.output === "json" ? `${JSON.stringify(tree, null, 2)}\n` : renderTree(tree, Date.now()),
    );
    return 0;
  },
});
