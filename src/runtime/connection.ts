import type { RequestOptions as HttpsRequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** TLS settings of a connection to the API server (PEM text). */
export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** Everything a request to the API server needs: where, which TLS, which credential headers. */
export interface Connection {
  /** The API server's base URL, e.g. `https://10.0.0.1:443`. */
  server: string;
  /** Lower-case header names: `authorization`, `impersonate-user`. */
  headers: Readonly<Record<string, string>>;
  tls: Readonly<TlsSettings>;
}

/** Where the client gets its connection settings, and whom it tells when the server refuses them. */
export interface ConnectionSource {
  /** The settings for the next request (cached; refreshed as the credentials require). */
  current(): Promise<Connection>;
  /** The server answered 401: the credentials must be loaded afresh before the next request. */
  refused(): void;
}

/**
 * What the client needs from an in-process client-node KubeConfig (tests, `berth dev`, scripts,
 * which load client-node anyway). It is only a type here: the operator itself loads kubeconfigs in
 * a worker (see kubeconfig.ts), so client-node's module graph never stays resident.
 */
export type ClusterAccess = Pick<KubeConfig, "getCurrentCluster" | "applyToHTTPSOptions">;

/** A source over an in-process KubeConfig, asked afresh for every request (it caches what it can). */
export function clusterAccessSource(config: ClusterAccess): ConnectionSource {
  return {
    async current() {
      const server = config.getCurrentCluster()?.server ?? "";
      const options: HttpsRequestOptions = {};
      await config.applyToHTTPSOptions(options);
      return { server, ...fromHttpsOptions(options) };
    },
    refused() {},
  };
}

/** Headers and TLS settings from what client-node's `applyToHTTPSOptions` filled in. */
export function fromHttpsOptions(options: HttpsRequestOptions): Pick<Connection, "headers" | "tls"> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = String(value).trim();
  }
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
  const tls: TlsSettings = {};
  const pem = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
  if (options.ca) tls.ca = pem(options.ca);
  if (options.cert) tls.cert = pem(options.cert);
  if (options.key) tls.key = pem(options.key);
  if (options.rejectUnauthorized !== undefined) tls.rejectUnauthorized = options.rejectUnauthorized;
  if (options.servername) tls.servername = options.servername;
  return { headers, tls };
}
