import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { RenewedCertificate } from "./certificate-directory.ts";
import type { Authorizer } from "./metrics-auth.ts";
import type { Certificate } from "./self-signed.ts";

// Not imported: an ES import of node:http loads node's bundled undici and http2 (see src/http/client.ts).
const { createServer } = process.getBuiltinModule("node:http");
const { createServer: createHttpsServer } = process.getBuiltinModule("node:https");

export class AddressError extends Error {
  readonly code = "bad_address";
}

export interface ListenAddress {
  host: string | undefined;
  port: number;
}

/** Parses `host:port`, `:port` (all interfaces) or `[v6]:port`. */
export function parseAddress(address: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new AddressError(
      `"${address}" is not a listen address: use host:port or :port (e.g. :8080 or 127.0.0.1:0)`,
    );
  }
  const host = match[1] ?? match[2];
  return { host: host === "" ? undefined : host, port };
}

export type Route = () => Promise<{ status: number; body: string; contentType?: string }>;

/** HTTPS, and every request authorized before it is routed. */
export interface ServerSecurity {
  /** A fixed certificate, or one whose renewals are served from the next handshake on. */
  tls: Certificate | RenewedCertificate;
  authorize: Authorizer;
}

/** A tiny HTTP(S) server answering GET on fixed paths; anything else is 404. */
export class ProbeServer {
  readonly #server: Server | HttpsServer;
  readonly #renewed: RenewedCertificate | undefined;
  #unwatch: (() => void) | undefined;

  constructor(routes: Record<string, Route>, security?: ServerSecurity) {
    const handler = (request: IncomingMessage, response: ServerResponse) =>
      void answer(routes, request, response, security?.authorize);
    if (security === undefined) {
      this.#server = createServer(handler);
      return;
    }
    const { tls } = security;
    this.#renewed = "current" in tls ? tls : undefined;
    this.#server = createHttpsServer("current" in tls ? tls.current() : tls, handler);
  }

  async listen(address: string): Promise<string> {
    const { host, port } = parseAddress(address);
    const server = this.#server;
    if (this.#renewed !== undefined && "setSecureContext" in server) {
      this.#unwatch ??= this.#renewed.watch((certificate) => server.setSecureContext(certificate));
    }
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    const bound = this.#server.address() as AddressInfo;
    return bound.family === "IPv6" ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
  }

  async close(): Promise<void> {
    this.#unwatch?.();
    this.#unwatch = undefined;
    if (!this.#server.listening) return;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function answer(
  routes: Record<string, Route>,
  request: IncomingMessage,
  response: ServerResponse,
  authorize: Authorizer | undefined,
) {
  const path = new URL(request.url ?? "/", "http://probe").pathname;
  const route = routes[path];
  if (route === undefined || (request.method !== "GET" && request.method !== "HEAD")) {
    response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    return;
  }
  try {
    const denial = await authorize?.(request.headers.authorization, path);
    if (denial !== undefined) {
      response.writeHead(denial.status, { "content-type": "text/plain" }).end(`${denial.message}\n`);
      return;
    }
    const { status, body, contentType = "text/plain; charset=utf-8" } = await route();
    response
      .writeHead(status, { "content-type": contentType })
      .end(request.method === "HEAD" ? undefined : body);
  } catch {
    response.writeHead(500, { "content-type": "text/plain" }).end("internal error\n");
  }
}
