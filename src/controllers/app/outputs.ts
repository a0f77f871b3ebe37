import type { App, AppStatus } from "../../api/app.ts";

/** What other workloads read from an App's output ConfigMap: its IDs, URL and each wired port's address. */
export function appOutputs(_app: App, status: AppStatus): Record<string, string> {
  const data: Record<string, string> = {};
  if (status.url !== undefined) data.url = status.url;
  if (status.appId !== undefined) data.appId = status.appId;
  if (status.projectId !== undefined) data.projectId = status.projectId;
  for (const { port, address } of status.endpoints ?? []) {
    if (address !== undefined && address !== null && address !== "") data[`address-${port}`] = address;
  }
  return data;
}
