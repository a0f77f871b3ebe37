import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createSecureContext } from "node:tls";
import type { Logger } from "../telemetry/logger.ts";
import type { Certificate } from "./self-signed.ts";

/** Why a certificate directory cannot be served from; the message names the directory and the fault. */
export class CertificateDirectoryError extends Error {
  readonly code = "certificate_unusable";
}

/** A certificate that may be replaced while it is served (a mounted Secret that cert-manager renews). */
export interface RenewedCertificate {
  current(): Certificate;
  /** Calls `renewed` with each valid replacement until the returned function is called. */
  watch(renewed: (certificate: Certificate) => void): () => void;
}

export interface CertificateDirectoryOptions {
  logger: Logger;
  /** How often the files are re-read (default 10 s; the kubelet updates a mounted Secret within a minute or so). */
  reloadIntervalMs?: number;
}

/**
 * `tls.crt` and `tls.key` in a directory, as a kubernetes.io/tls Secret is mounted (its `ca.crt`
 * is not used): checked at load, then re-read on a timer and swapped in when both change into a
 * valid pair. A half-written or mismatched pair is skipped, the previous one served meanwhile.
 */
export class CertificateDirectory implements RenewedCertificate {
  readonly #dir: string;
  readonly #options: CertificateDirectoryOptions;
  #certificate: Certificate;
  /** The last pair that failed the checks, and whether that was logged (once, and only if it lasts). */
  #refused: { pair: string; logged: boolean } | undefined;

  private constructor(dir: string, certificate: Certificate, options: CertificateDirectoryOptions) {
    this.#dir = dir;
    this.#certificate = certificate;
    this.#options = options;
  }

  /** The directory's pair, checked; a CertificateDirectoryError saying what is wrong otherwise. */
  static async load(dir: string, options: CertificateDirectoryOptions): Promise<CertificateDirectory> {
    const found = await stat(dir).catch((error: NodeJS.ErrnoException) => error.code ?? "unknown error");
    if (typeof found === "string") {
      const what = found === "ENOENT" ? "does not exist" : `cannot be read (${found})`;
      throw new CertificateDirectoryError(`${dir} ${what}`);
    }
    if (!found.isDirectory()) throw new CertificateDirectoryError(`${dir} is not a directory`);
    const certificate = await readPair(dir);
    const notAfter = validateOrThrow(dir, certificate);
    options.logger.info({ dir, notAfter }, "serving the mounted metrics certificate");
    if (Date.parse(notAfter) < Date.now()) {
      options.logger.warn({ dir, notAfter }, "the mounted metrics certificate has expired");
    }
    return new CertificateDirectory(dir, certificate, options);
  }

  current(): Certificate {
    return this.#certificate;
  }

  watch(renewed: (certificate: Certificate) => void): () => void {
    let checking = false;
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void this.#reload(renewed).finally(() => {
        checking = false;
      });
    }, this.#options.reloadIntervalMs ?? 10_000);
    timer.unref();
    return () => clearInterval(timer);
  }

  async #reload(renewed: (certificate: Certificate) => void): Promise<void> {
    const { logger } = this.#options;
    let next: Certificate;
    try {
      next = await readPair(this.#dir);
    } catch (error) {
      this.#refuse(error instanceof Error ? error.message : String(error), "unreadable");
      return;
    }
    if (next.cert === this.#certificate.cert && next.key === this.#certificate.key) {
      this.#refused = undefined;
      return;
    }
    try {
      const notAfter = validateOrThrow(this.#dir, next);
      this.#certificate = next;
      this.#refused = undefined;
      logger.info({ dir: this.#dir, notAfter }, "metrics certificate reloaded");
      renewed(next);
    } catch (error) {
      this.#refuse(error instanceof Error ? error.message : String(error), next.cert + next.key);
    }
  }

  /**
   * Logged when the same bad pair is read twice: the two files are read one after the other, so a
   * read straddling the kubelet's swap of a renewed Secret can pair the old tls.crt with the new
   * tls.key once, and the next read is right.
   */
  #refuse(reason: string, pair: string): void {
    if (this.#refused?.pair !== pair) {
      this.#refused = { pair, logged: false };
      return;
    }
    if (this.#refused.logged) return;
    this.#refused.logged = true;
    this.#options.logger.warn(
      { dir: this.#dir, reason },
      "metrics certificate not reloaded; still serving the previous one",
    );
  }
}

async function readPair(dir: string): Promise<Certificate> {
  const [cert, key] = await Promise.allSettled(
    ["tls.crt", "tls.key"].map((name) => readFile(path.join(dir, name), "utf8")),
  );
  if (cert?.status === "fulfilled" && key?.status === "fulfilled")
    return { cert: cert.value, key: key.value };
  const problems = [cert, key].flatMap((read, i) => {
    if (read?.status !== "rejected") return [];
    const code = (read.reason as NodeJS.ErrnoException).code;
    const name = i === 0 ? "tls.crt" : "tls.key";
    return [code === "ENOENT" ? `has no ${name}` : `cannot read ${name} (${code ?? "unknown error"})`];
  });
  throw new CertificateDirectoryError(`${dir} ${problems.join(" and ")}`);
}

/** The pair's expiry (ISO), or a CertificateDirectoryError; messages never quote the files. */
function validateOrThrow(dir: string, { cert, key }: Certificate): string {
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new CertificateDirectoryError(`${dir}/tls.crt is not a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new CertificateDirectoryError(`${dir}/tls.key is not a PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new CertificateDirectoryError(`${dir}/tls.key is not the private key of ${dir}/tls.crt`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CertificateDirectoryError(`${dir}: TLS refuses tls.crt with tls.key (${reason})`);
  }
  return x509.validToDate.toISOString();
}
