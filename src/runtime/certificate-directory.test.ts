import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { certificateAuthority, handshake } from "../../test/support/certificates.ts";
import { createLogger } from "../telemetry/logger.ts";
import { createMetrics } from "../telemetry/metrics.ts";
import { CertificateDirectory, CertificateDirectoryError } from "./certificate-directory.ts";
import { Manager } from "./manager.ts";

const serverName = "berth-operator-metrics.berth-system.svc";

/** Writes a pair the way the kubelet updates a mounted Secret: a new dir, then `..data` swapped to it. */
async function mountPair(dir: string, pair: { cert: string; key: string }, ca: string): Promise<void> {
  const version = path.join(dir, `..${Date.now()}_${Math.random().toString(36).slice(2)}`);
  await mkdir(version);
  await writeFile(path.join(version, "tls.crt"), pair.cert);
  await writeFile(path.join(version, "tls.key"), pair.key);
  await writeFile(path.join(version, "ca.crt"), ca);
  await symlink(path.basename(version), path.join(dir, "..data_tmp"));
  await rename(path.join(dir, "..data_tmp"), path.join(dir, "..data"));
  for (const name of ["tls.crt", "tls.key", "ca.crt"]) {
    await symlink(path.join("..data", name), path.join(dir, name)).catch(() => undefined);
  }
}

describe("CertificateDirectory", () => {
  const logger = createLogger({ level: "silent" });
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "berth-cert-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the mounted certificate, verified by its CA, and the renewed one once the Secret changes", async () => {
    const ca = await certificateAuthority();
    const first = await ca.issue([serverName, `${serverName}.cluster.local`]);
    // tls.crt as cert-manager may write it: the certificate, then the chain.
    await mountPair(dir, { cert: `${first.cert}\n${ca.cert}\n`, key: first.key }, ca.cert);
    const warn = vi.fn();
    const watched = createLogger({ level: "silent" });
    watched.warn = warn as typeof watched.warn;
    const manager = new Manager({
      logger,
      metrics: createMetrics(new Registry()),
      metricsAddr: "127.0.0.1:0",
      metricsSecurity: {
        tls: await CertificateDirectory.load(dir, { logger: watched, reloadIntervalMs: 20 }),
        authorize: async () => undefined,
      },
    });
    await manager.start();
    try {
      const address = manager.addresses.metrics ?? "";
      expect(await handshake(address, ca.cert, serverName)).toEqual({
        authorized: true,
        serial: first.serial,
      });
      // A name the certificate is not for is refused, as Prometheus's serverName check would.
      const other = await handshake(address, ca.cert, "elsewhere.example");
      expect(other.authorized).toBe(false);

      // A mismatched pair (a renewal caught half-way) is not served; the previous one stays.
      const second = await ca.issue([serverName]);
      await mountPair(dir, { cert: second.cert, key: first.key }, ca.cert);
      await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1));
      expect(JSON.stringify(warn.mock.calls[0])).toContain("tls.key is not the private key of");
      expect((await handshake(address, ca.cert, serverName)).serial).toBe(first.serial);

      await mountPair(dir, second, ca.cert);
      await vi.waitFor(async () =>
        expect(await handshake(address, ca.cert, serverName)).toEqual({
          authorized: true,
          serial: second.serial,
        }),
      );
      // The bad pair was reported once, not at every re-read.
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      await manager.stop();
    }
  });

  it("names the directory and what is wrong with it", async () => {
    const ca = await certificateAuthority();
    const pair = await ca.issue([serverName]);
    const other = await ca.issue([serverName]);
    const failure = async () => {
      const error = await CertificateDirectory.load(dir, { logger }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CertificateDirectoryError);
      return (error as Error).message;
    };
    const missing = path.join(dir, "nowhere");
    expect(await CertificateDirectory.load(missing, { logger }).catch((e: Error) => e.message)).toBe(
      `${missing} does not exist`,
    );
    expect(await failure()).toBe(`${dir} has no tls.crt and has no tls.key`);
    await writeFile(path.join(dir, "tls.key"), pair.key);
    expect(await failure()).toBe(`${dir} has no tls.crt`);
    await rm(path.join(dir, "tls.key"));
    await writeFile(path.join(dir, "tls.crt"), pair.cert);
    expect(await failure()).toBe(`${dir} has no tls.key`);
    await writeFile(path.join(dir, "tls.key"), "not a key");
    expect(await failure()).toBe(`${dir}/tls.key is not a PEM private key`);
    await writeFile(path.join(dir, "tls.key"), other.key);
    expect(await failure()).toBe(`${dir}/tls.key is not the private key of ${dir}/tls.crt`);
    await writeFile(
      path.join(dir, "tls.crt"),
      "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    );
    expect(await failure()).toBe(`${dir}/tls.crt is not a PEM certificate`);
    await writeFile(path.join(dir, "tls.crt"), other.cert);
    const loaded = await CertificateDirectory.load(dir, { logger });
    expect(new X509Certificate(loaded.current().cert).serialNumber).toBe(other.serial);
  });
});
