import { createServer } from "node:http";
import { type RequestOptions, request } from "node:https";
import type { AddressInfo } from "node:net";
import type { KubeConfig } from "@kubernetes/client-node";
import { type ConnectionSource, fromHttpsOptions } from "../../src/runtime/connection.ts";

export interface KubeRequest {
  method: string;
  /** Path and query, as sent. */
  url: URL;
  accept: string;
}

/**
 * A plain-HTTP proxy in front of the test cluster's API server that records each request's method,
 * path, query and Accept header, and streams the answers through (watches too). `source` points
 * an operator at it with the cluster's own credentials.
 */
export async function startKubeRecordingProxy(config: KubeConfig) {
  const server = config.getCurrentCluster()?.server;
  if (server === undefined) throw new Error("the test kubeconfig has no current cluster");
  const target = new URL(server);
  const tls: RequestOptions = {};
  await config.applyToHTTPSOptions(tls);
  const requests: KubeRequest[] = [];
  const proxy = createServer((incoming, outgoing) => {
    requests.push({
      method: incoming.method ?? "",
      url: new URL(incoming.url ?? "/", "http://proxy"),
      accept: incoming.headers.accept ?? "",
    });
    const forward = request(
      {
        ...tls,
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    // The operator closed a watch: close it at the API server too.
    outgoing.on("close", () => forward.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  const { headers } = fromHttpsOptions(tls);
  const source: ConnectionSource = {
    current: async () => ({ server: `http://127.0.0.1:${port}`, headers, tls: {} }),
    refused: () => undefined,
  };
  return {
    source,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}
