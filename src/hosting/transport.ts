import type { IncomingHttpHeaders } from "node:http";
import { Pool } from "undici";

export interface HttpRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path below the base URL, query included, e.g. `/projects/abc/apps?name=web`. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One base URL's connections. */
export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Concurrent connections to the service. */
  connections?: number;
  connectTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}

/** A keep-alive undici Pool for one base URL (e.g. `https://host/v1`); request paths go below it. */
export function createUndiciTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  const url = parseBaseUrl(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, "");
  const pool = new Pool(url.origin, {
    connections: options.connections ?? 16,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connect: { timeout: options.connectTimeoutMs ?? 5_000 },
  });
  return {
    async send(request) {
      const response = await pool.request({
        method: request.method,
        path: `${basePath}${request.path}`,
        headers: request.headers,
        body: request.body,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
        signal: request.signal,
      });
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    close: () => pool.close(),
  };
}

export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`hosting base URL "${baseUrl}" is not a URL; expected e.g. https://host/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`hosting base URL must use http or https, not ${url.protocol}`);
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new TypeError("hosting base URL must not carry a query, fragment or user info");
  }
  return url;
}
