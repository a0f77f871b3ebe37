import type { IncomingHttpHeaders } from "node:http";
import { createAgent, readText, send } from "../http/client.ts";

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

/** Keep-alive connections to one base URL (e.g. `https://host/v1`); request paths go below it. */
export function createHttpTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  const url = parseBaseUrl(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, "");
  const agent = createAgent(url, {
    maxSockets: options.connections ?? 16,
    idleTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
  });
  return {
    async send(request) {
      const response = await send(agent, new URL(`${basePath}${request.path}`, url.origin), {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: request.signal,
        connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
        headersTimeoutMs: request.timeoutMs,
      });
      return {
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: await readText(response, request.timeoutMs),
      };
    },
    async close() {
      agent.destroy();
    },
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
