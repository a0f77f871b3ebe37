import { createHash } from "node:crypto";
import type { Agent, IncomingMessage } from "node:http";
import { z } from "zod";
import { createAgent, readText, retire, send } from "../http/client.ts";
import {
  type ClusterAccess,
  type Connection,
  type ConnectionSource,
  clusterAccessSource,
  type TlsSettings,
} from "./connection.ts";
import { codeForStatus, KubeApiError } from "./errors.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type Query = Record<string, string | number | boolean | undefined>;

export interface CallOptions {
  query?: Query;
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The Accept header (default application/json): e.g. metadata only, as PartialObjectMetadata. */
  accept?: string;
}

export const patchTypes = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
} as const;

const statusSchema = z.looseObject({
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
});

const defaultTimeoutMs = 30_000;
/**
 * An idle connection is closed after this long (undici's default is 4 s): a burst of writes opens
 * dozens, each holding TLS buffers, which would otherwise stay open until the server drops them.
 */
const idleConnectionMs = 5_000;

/**
 * A small Kubernetes REST client over node's HTTP/1.1 client. client-node's generated clients build a new
 * connection pool per call; this keeps one per cluster and credentials. Its settings come from a
 * ConnectionSource (the operator's: a kubeconfig loaded in a worker, see kubeconfig.ts) or an
 * in-process client-node KubeConfig; a 401 tells the source, which loads fresh credentials, and the
 * request is sent once more (a refused request did nothing).
 */
export class KubeClient {
  readonly #source: ConnectionSource;
  #dispatcher: { tls: Readonly<TlsSettings>; key: string; agent: Agent } | undefined;

  constructor(source: ConnectionSource | ClusterAccess) {
    this.#source = "applyToHTTPSOptions" in source ? clusterAccessSource(source) : source;
  }

  /** Sends a request and returns the parsed JSON body (undefined when empty). */
  async call(method: HttpMethod, path: string, options: CallOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    let response = await this.#send(method, path, options, timeoutMs);
    if (response.statusCode === 401) {
      await readBody(response, method, path, timeoutMs);
      this.#source.refused();
      response = await this.#send(method, path, options, timeoutMs);
    }
    const status = response.statusCode ?? 0;
    const text = await readBody(response, method, path, timeoutMs);
    if (status === 401) this.#source.refused();
    if (status >= 300) throw apiError(status, method, path, text);
    return text === "" ? undefined : parseJson(text, method, path);
  }

  /**
   * Opens a streaming GET (a watch) and yields its lines. Only the response headers are bounded in
   * time; the caller bounds silence by aborting `signal`.
   */
  async *stream(path: string, query: Query, signal: AbortSignal, accept?: string): AsyncGenerator<string> {
    const response = await this.#send("GET", path, { query, signal, ...(accept ? { accept } : {}) }, 0);
    const status = response.statusCode ?? 0;
    if (status === 401) this.#source.refused();
    if (status !== 200) {
      throw apiError(status, "GET", path, await readBody(response, "GET", path, defaultTimeoutMs));
    }
    // A multi-byte character can straddle two chunks: decode in streaming mode.
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf("\n");
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== "") yield line;
          newline = buffered.indexOf("\n");
        }
      }
    } catch (error) {
      throw transportError("GET", path, error);
    } finally {
      response.destroy();
    }
  }

  async close(): Promise<void> {
    const current = this.#dispatcher;
    this.#dispatcher = undefined;
    current?.agent.destroy();
  }

  async #send(
    method: HttpMethod,
    path: string,
    options: CallOptions,
    headersTimeoutMs: number,
  ): Promise<IncomingMessage> {
    let connection: Connection;
    try {
      connection = await this.#source.current();
    } catch (error) {
      if (error instanceof KubeApiError) throw error;
      throw new KubeApiError("config", 0, `${method} ${path}: ${(error as Error).message}`, undefined, {
        cause: error,
      });
    }
    if (!connection.server)
      throw new KubeApiError("config", 0, "the kubeconfig has no current cluster with a server address");
    const url = new URL(connection.server.replace(/\/$/, "") + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      ...connection.headers,
      accept: options.accept ?? "application/json",
    };
    const hasBody = options.body !== undefined;
    if (hasBody) headers["content-type"] = options.contentType ?? "application/json";
    try {
      return await send(this.#agentFor(url, connection.tls), url, {
        method,
        headers,
        ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        headersTimeoutMs,
      });
    } catch (error) {
      throw transportError(method, path, error);
    }
  }

  /** One connection pool per TLS identity; a new identity (a rotated client certificate) gets a new pool. */
  #agentFor(url: URL, tls: Readonly<TlsSettings>): Agent {
    const current = this.#dispatcher;
    if (current?.tls === tls) return current.agent;
    const hash = createHash("sha256");
    for (const [name, value] of Object.entries(tls)) hash.update(`\0${name}=${String(value)}`);
    const key = hash.digest("hex");
    if (current?.key === key) {
      this.#dispatcher = { ...current, tls };
      return current.agent;
    }
    this.#dispatcher = { tls, key, agent: createAgent(url, { tls, idleTimeoutMs: idleConnectionMs }) };
    if (current !== undefined) retire(current.agent);
    return this.#dispatcher.agent;
  }
}

async function readBody(
  response: IncomingMessage,
  method: HttpMethod,
  path: string,
  idleTimeoutMs: number,
): Promise<string> {
  try {
    return await readText(response, idleTimeoutMs);
  } catch (error) {
    throw transportError(method, path, error);
  }
}

function parseJson(text: string, method: HttpMethod, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new KubeApiError(
      "bad_response",
      200,
      `${method} ${path}: the API server answered with invalid JSON`,
    );
  }
}

function apiError(statusCode: number, method: HttpMethod, path: string, body: string): KubeApiError {
  let status: z.infer<typeof statusSchema> = {};
  try {
    status = statusSchema.parse(JSON.parse(body));
  } catch {
    // Not a Status object (a proxy's HTML page, say): the HTTP status alone must do.
  }
  const detail = status.message ?? `HTTP ${statusCode}`;
  return new KubeApiError(
    codeForStatus(statusCode),
    statusCode,
    `${method} ${path}: ${detail}`,
    status.reason,
  );
}

function transportError(method: HttpMethod, path: string, error: unknown): KubeApiError {
  const detail = error instanceof Error ? error.message : String(error);
  return new KubeApiError("transport", 0, `${method} ${path}: ${detail}`, undefined, { cause: error });
}
