import { createServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";

/** A request seen by the proxy: its method, path and Idempotency-Key. */
export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/**
 * A pass-through HTTP proxy in front of the simulator that can hold chosen requests: a held request
 * is never forwarded and never answered, so the service never sees it. A test uses it to stop the
 * operator between recording what it is about to do and the call reaching the service.
 */
export async function startHoldingProxy(target: string) {
  const base = new URL(target);
  let holds: ((method: string, path: string) => boolean) | undefined;
  const held: ProxiedRequest[] = [];
  const forwarded: ProxiedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const seen = proxied(incoming);
      if (holds?.(seen.method, seen.path) === true) {
        held.push(seen);
        return;
      }
      forwarded.push(seen);
      const forward = request(
        {
          host: base.hostname,
          port: base.port,
          method: seen.method,
          path: seen.path,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${base.pathname}`,
    /** Holds every request from now on for which `test` holds; undefined forwards all again. */
    hold(test: ((method: string, path: string) => boolean) | undefined): void {
      holds = test;
    },
    /** Requests held (never forwarded), in arrival order. */
    held: () => [...held],
    /** Requests forwarded to the service, in arrival order. */
    forwarded: () => [...forwarded],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function proxied(incoming: IncomingMessage): ProxiedRequest {
  const key = incoming.headers["idempotency-key"];
  return {
    method: incoming.method ?? "",
    path: incoming.url ?? "",
    idempotencyKey: Array.isArray(key) ? key.join(",") : key,
  };
}
