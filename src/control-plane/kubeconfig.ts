import { stringify } from "yaml";

export interface KubeconfigInput {
  server: string;
  caData: Buffer;
  token: string;
}

export const localContext = "berth-local";

export function renderKubeconfig({ server, caData, token }: KubeconfigInput): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: localContext, cluster: { server, "certificate-authority-data": caData.toString("base64") } },
    ],
    users: [{ name: "berth-admin", user: { token } }],
    contexts: [{ name: localContext, context: { cluster: localContext, user: "berth-admin" } }],
    "current-context": localContext,
  });
}
