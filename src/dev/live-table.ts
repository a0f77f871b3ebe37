import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { group, kinds, version } from "../api/index.ts";
import { renderTable, toRow } from "./status-table.ts";

/** Lists every berth resource in `namespace` as table rows. */
export async function readRows(kubeConfig: KubeConfig, namespace: string) {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const lists = await Promise.all(
    kinds.map(async ({ names }) => {
      const list = (await api.listNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: names.plural,
      })) as {
        items?: { metadata?: { name?: string }; status?: Record<string, unknown> }[];
      };
      return (list.items ?? []).map((item) => toRow(names.kind, item));
    }),
  );
  return lists.flat();
}

/**
 * Redraws the table every `intervalMs` until `signal` aborts: in place on a terminal, or a new copy
 * whenever it changes when output is piped.
 */
export async function showLiveTable(
  kubeConfig: KubeConfig,
  namespace: string,
  out: NodeJS.WriteStream | NodeJS.WritableStream,
  signal: AbortSignal,
  header: string,
  footer: () => Promise<string> = async () => "",
  intervalMs = 1000,
): Promise<void> {
  const tty = "isTTY" in out && out.isTTY === true;
  let previous = "";
  while (!signal.aborted) {
    const table = await readRows(kubeConfig, namespace)
      .then(async (rows) => renderTable(rows, tty && "columns" in out ? out.columns : 200) + (await footer()))
      .catch(
        (error: unknown) => `cannot list resources: ${error instanceof Error ? error.message : error}\n`,
      );
    if (table !== previous) {
      out.write(tty ? `\x1b[H\x1b[2J${header}\n${table}` : `\n${new Date().toISOString()}\n${table}`);
      previous = table;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
