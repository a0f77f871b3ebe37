import { z } from "zod";
import { KubeClient, KubeconfigSource } from "../../runtime/index.ts";
import { booleanish, defineCommand, UsageError } from "../command.ts";
import { describeManaged, type Managed } from "../uninstall/inventory.ts";
import { UninstallError, uninstall } from "../uninstall/uninstall.ts";

function listing(resources: Managed[]): string {
  return resources
    .filter((r) => r.external.length > 0)
    .map((r) => `  ${describeManaged(r)}: ${r.external.join(", ")}\n`)
    .join("");
}

export const uninstallCommand = defineCommand({
  name: "uninstall",
  summary:
    "remove berth: its CRDs (the operator releases every resource without calls), then the operator; what it managed keeps running, listed",
  flags: {
    kubeconfig: { description: "kubeconfig file (default $KUBECONFIG, then ~/.kube/config)" },
    "delete-external": {
      description:
        "first delete every berth resource and wait while the operator deletes what each manages at the service (apps, projects, grids, servers), then remove berth (default false)",
      type: "boolean",
    },
    timeout: { description: 'how long each step may wait, e.g. "10m" (default "5m")' },
  },
  config: z.object({
    kubeconfig: z.string().min(1).optional(),
    deleteExternal: booleanish.default(false),
    timeout: z
      .string()
      .regex(/^\d+[smh]$/, 'must be a duration such as "90s", "5m" or "1h"')
      .default("5m"),
  }),
  async run(config, { stdout, stderr }) {
    let source: KubeconfigSource;
    try {
      source = await KubeconfigSource.load(
        config.kubeconfig === undefined ? {} : { path: config.kubeconfig },
      );
    } catch (error) {
      throw new UsageError(
        `cannot read the kubeconfig: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const kube = new KubeClient(source);
    const unit = { s: 1000, m: 60_000, h: 3_600_000 }[config.timeout.slice(-1) as "s" | "m" | "h"];
    const say = (line: string) => stderr.write(`berth uninstall: ${line}\n`);
    try {
      const report = await uninstall(kube, {
        deleteExternal: config.deleteExternal,
        timeoutMs: Number.parseInt(config.timeout, 10) * unit,
        say,
      });
      say(
        `removed ${report.removed.length} objects of the operator; its namespace and your credentials Secrets stay`,
      );
      const external = listing(report.resources);
      if (config.deleteExternal) stdout.write(`deleted at the service:\n${external || "  nothing\n"}`);
      else
        stdout.write(
          `left running at the service (berth no longer manages them):\n${external || "  nothing\n"}`,
        );
      return 0;
    } catch (error) {
      if (!(error instanceof UninstallError)) throw error;
      say(error.message);
      return 1;
    } finally {
      await kube.close();
    }
  },
});
