import type http from "node:http";
import type https from "node:https";

// Not `import … from "node:http"`: an ES import of node:http reads its lazy `WebSocket` export,
// which loads node's bundled undici and http2, some 6 MB that an operator never uses.
const { Agent: HttpAgent, request: httpRequest } = process.getBuiltinModule("node:http");
const { Agent: HttpsAgent, request: httpsRequest } = process.getBuiltinModule("node:https");

export type HttpTimeoutCode = "connect_timeout" | "headers_timeout" | "body_timeout";

/** A request that took too long: to connect, to answer, or between two chunks of its body. */
export class HttpTimeoutError extends Error {
  readonly code: HttpTimeoutCode;

  constructor(code: HttpTimeoutCode, ms: number) {
    super(`${code.replace("_", " ")} after ${ms} ms`);
    this.name = "HttpTimeoutError";
    this.code = code;
  }
}

export interface AgentOptions {
  /** TLS settings of every connection (PEM text), for https. */
  tls?: Pick<https.AgentOptions, "ca" | "cert" | "key" | "rejectUnauthorized" | "servername">;
  /** Most connections open at once (default: no limit). */
  maxSockets?: number;
  /** How long an idle connection is kept (default: until the server closes it). */
  idleTimeoutMs?: number;
}

/**
 * Keep-alive HTTP/1.1 connections to one server over node's own client: its parser is native,
 * where undici's is WebAssembly whose compiler and module stay resident (some 25 MB).
 */
export function createAgent(url: URL, options: AgentOptions = {}): http.Agent {
  const common = {
    keepAlive: true,
    ...(options.maxSockets === undefined ? {} : { maxSockets: options.maxSockets }),
    ...(options.idleTimeoutMs === undefined ? {} : { timeout: options.idleTimeoutMs }),
  };
  return url.protocol === "https:" ? new HttpsAgent({ ...common, ...options.tls }) : new HttpAgent(common);
}

/** Closes an agent's idle connections now and each busy one (a watch) once its request is over. */
export function retire(agent: http.Agent): void {
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
}

export interface HttpSend {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Bounds the wait for a new connection; 0 waits as long as it takes. */
  connectTimeoutMs?: number;
  /** Bounds the wait for the response headers once the request left; 0 waits as long as it takes. */
  headersTimeoutMs: number;
}

/** Sends a request and resolves with the response once its headers are in. */
export function send(agent: http.Agent, url: URL, options: HttpSend): Promise<http.IncomingMessage> {
  const headers = { ...options.headers };
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  const requestFn = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = requestFn(url, {
      method: options.method,
      headers,
      agent,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const timeout = (code: HttpTimeoutCode, ms: number | undefined) =>
      ms === undefined || ms <= 0
        ? undefined
        : setTimeout(() => request.destroy(new HttpTimeoutError(code, ms)), ms);
    let connecting: NodeJS.Timeout | undefined;
    let answering: NodeJS.Timeout | undefined;
    request.once("socket", (socket) => {
      if (!socket.connecting) return;
      connecting = timeout("connect_timeout", options.connectTimeoutMs);
      socket.once("connect", () => clearTimeout(connecting));
    });
    request.once("finish", () => {
      answering = timeout("headers_timeout", options.headersTimeoutMs);
    });
    const settle = () => {
      clearTimeout(connecting);
      clearTimeout(answering);
    };
    request.once("response", (response) => {
      settle();
      resolve(response);
    });
    request.once("error", (error) => {
      settle();
      reject(error);
    });
    request.end(options.body);
  });
}

/** Reads a whole response body as UTF-8; `idleTimeoutMs` (0: none) bounds the silence between chunks. */
export async function readText(response: http.IncomingMessage, idleTimeoutMs: number): Promise<string> {
  const chunks: Buffer[] = [];
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (idleTimeoutMs <= 0) return;
    clearTimeout(timer);
    timer = setTimeout(
      () => response.destroy(new HttpTimeoutError("body_timeout", idleTimeoutMs)),
      idleTimeoutMs,
    );
  };
  arm();
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      arm();
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
