import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

/**
 * A pass-through HTTP proxy in front of the simulator that records each request's method, path
 * and JSON body, so a test can check exactly what the operator sent (the simulator logs no bodies).
 */
export async function startRecordingProxy(target: string) {
  const base = new URL(target);
  const recorded: RecordedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      recorded.push({
        method: incoming.method ?? "",
        path: incoming.url ?? "",
        body: text === "" ? undefined : JSON.parse(text),
      });
      const forward = request(
        {
          host: base.hostname,
          port: base.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${base.pathname}`,
    recorded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
