import { fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { Connection, ConnectionSource } from "./connection.ts";
import { KubeApiError } from "./errors.ts";
import { type LoadedKubeconfig, type LoadRequest, loaderReplySchema } from "./kubeconfig-protocol.ts";

export interface KubeconfigOptions extends LoadRequest {
  /** How long a token file's content is used before it is read again (client-go: one minute). */
  tokenFileMaxAgeMs?: number;
  /** Fewest milliseconds between two loads prompted by refusals, so an exec plugin is not hammered. */
  minReloadIntervalMs?: number;
  now?: () => number;
  /** Loads the settings (default: client-node in a child process); a unit test answers in-process. */
  loader?: (request: LoadRequest) => Promise<LoadedKubeconfig>;
}

const jwtClaimsSchema = z.looseObject({ exp: z.number().optional() });
const loaderFile = fileURLToPath(
  new URL(`./kubeconfig-loader${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/**
 * The operator's kubeconfig, loaded by client-node in a short-lived child process (see
 * kubeconfig-loader.ts) so its ~90 MB stay out of the operator. Credentials keep working as they rotate:
 *
 * - a token file (in-cluster service-account tokens, a kubeconfig's `token-file`) is re-read at
 *   most `tokenFileMaxAgeMs` after the last read, and at once after a 401;
 * - anything else (exec plugins, auth providers, static tokens, client certificates) is loaded
 *   again after a 401, and shortly before a bearer token's JWT `exp`.
 */
export class KubeconfigSource implements ConnectionSource {
  readonly #request: LoadRequest;
  readonly #tokenFileMaxAgeMs: number;
  readonly #minReloadIntervalMs: number;
  readonly #now: () => number;
  readonly #loader: (request: LoadRequest) => Promise<LoadedKubeconfig>;
  #loaded: { settings: LoadedKubeconfig; at: number; refreshAt: number } | undefined;
  #loading: Promise<void> | undefined;
  #token: { value: string; readAt: number } | undefined;
  #refused = false;
  #connection: Connection | undefined;

  constructor(options: KubeconfigOptions = {}) {
    const { tokenFileMaxAgeMs, minReloadIntervalMs, now, loader, ...request } = options;
    this.#request = request;
    this.#tokenFileMaxAgeMs = tokenFileMaxAgeMs ?? 60_000;
    this.#minReloadIntervalMs = minReloadIntervalMs ?? 5_000;
    this.#now = now ?? Date.now;
    this.#loader = loader ?? runLoader;
  }

  /** Loads the kubeconfig once, so a broken one fails at start-up. */
  static async load(options: KubeconfigOptions = {}): Promise<KubeconfigSource> {
    const source = new KubeconfigSource(options);
    await source.current();
    return source;
  }

  async current(): Promise<Connection> {
    if (this.#reloadDue()) {
      this.#loading ??= this.#reload().finally(() => {
        this.#loading = undefined;
      });
      await this.#loading;
    }
    const loaded = this.#loaded;
    if (loaded === undefined) throw new KubeApiError("config", 0, "the kubeconfig is not loaded");
    const { tokenFile } = loaded.settings;
    if (tokenFile !== undefined && this.#tokenDue()) await this.#readToken(tokenFile);
    this.#refused = false;
    if (this.#connection === undefined) {
      const { server, headers, tls } = loaded.settings;
      const token = tokenFile === undefined ? undefined : this.#token?.value;
      this.#connection = {
        server,
        headers: token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` },
        tls,
      };
    }
    return this.#connection;
  }

  refused(): void {
    this.#refused = true;
  }

  #reloadDue(): boolean {
    const loaded = this.#loaded;
    if (loaded === undefined) return true;
    const now = this.#now();
    if (now >= loaded.refreshAt) return true;
    // A refused token file is re-read first; the kubeconfig itself only when nothing rotates by file.
    const byFile = loaded.settings.tokenFile !== undefined;
    return this.#refused && !byFile && now - loaded.at >= this.#minReloadIntervalMs;
  }

  #tokenDue(): boolean {
    const token = this.#token;
    return token === undefined || this.#refused || this.#now() - token.readAt >= this.#tokenFileMaxAgeMs;
  }

  async #reload(): Promise<void> {
    const settings = await this.#loader(this.#request);
    const at = this.#now();
    this.#loaded = { settings, at, refreshAt: refreshTime(settings, at) };
    this.#token = undefined;
    this.#connection = undefined;
  }

  async #readToken(file: string): Promise<void> {
    let value: string;
    try {
      value = (await readFile(file, "utf8")).trim();
    } catch (error) {
      throw new KubeApiError("config", 0, `cannot read the token file ${file}: ${(error as Error).message}`);
    }
    if (value !== this.#token?.value) this.#connection = undefined;
    this.#token = { value, readAt: this.#now() };
  }
}

/** Shortly before a bearer token's JWT expires (a fifth of its life, at most a minute); else never. */
function refreshTime(settings: LoadedKubeconfig, loadedAt: number): number {
  const token = /^Bearer (\S+)$/.exec(settings.headers.authorization ?? "")?.[1];
  const payload = settings.tokenFile === undefined ? token?.split(".")[1] : undefined;
  if (payload === undefined) return Number.POSITIVE_INFINITY;
  let claims: z.infer<typeof jwtClaimsSchema>;
  try {
    claims = jwtClaimsSchema.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  if (claims.exp === undefined) return Number.POSITIVE_INFINITY;
  const expiresAt = claims.exp * 1000;
  return expiresAt - Math.min(60_000, Math.max(0, expiresAt - loadedAt) / 5);
}

/** One loader process: client-node loads the kubeconfig there, and the process ends with the answer. */
function runLoader(request: LoadRequest): Promise<LoadedKubeconfig> {
  return new Promise((resolve, reject) => {
    const child = fork(loaderFile, [JSON.stringify(request)], {
      execArgv: [],
      serialization: "json",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const fail = (message: string) =>
      reject(new KubeApiError("config", 0, `loading the kubeconfig: ${message}`));
    child.once("message", (message: unknown) => {
      const reply = loaderReplySchema.safeParse(message);
      if (!reply.success) fail("the loader answered with an unexpected message");
      else if (reply.data.ok) resolve(reply.data.loaded);
      else fail(reply.data.message);
    });
    child.once("error", (error) => fail(error.message));
    child.once("exit", (code) =>
      fail(`the loader exited with code ${code} before answering: ${stderr.trim()}`),
    );
  });
}
