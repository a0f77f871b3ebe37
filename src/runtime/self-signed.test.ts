import { createPrivateKey, X509Certificate } from "node:crypto";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { certificateKeys, selfSignedCertificate } from "./self-signed.ts";

describe("selfSignedCertificate", () => {
  it("is a valid, self-signed certificate for the names and addresses asked for", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const { cert, key } = await selfSignedCertificate(["berth-operator", "localhost", "127.0.0.1", "::1"], {
      days: 30,
      now,
    });
    const x509 = new X509Certificate(cert);
    expect(x509.checkIssued(x509)).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x509.subjectAltName).toBe(
      "DNS:berth-operator, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
    expect(new Date(x509.validFrom).getTime()).toBe(now.getTime() - 3_600_000);
    expect(new Date(x509.validTo).getTime()).toBe(now.getTime() + 30 * 86_400_000);
  });

  it("serves TLS that a client trusting it accepts for 127.0.0.1", async () => {
    const pair = await selfSignedCertificate(["localhost", "127.0.0.1"]);
    const server = createServer(pair, (_, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        request({ host: "127.0.0.1", port, ca: pair.cert }, (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          response.on("end", () => resolve(text));
        })
          .on("error", reject)
          .end();
      });
      expect(body).toBe("ok");
    } finally {
      server.close();
    }
  });

  // Each start makes one: a certificate Node refuses (as a non-minimal serial once made 1 in 256
  // be) stops the operator. The serial is the random part, so one key pair serves every round.
  it("parses and verifies every time over 10,000 generations, each with its own serial", async () => {
    const keys = await certificateKeys();
    const serials = new Set<string>();
    // Ten at a time: the signing runs on libuv's threads while the last batch is parsed.
    for (let round = 0; round < 1000; round++) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () => selfSignedCertificate(["berth-operator", "127.0.0.1"], { keys })),
      );
      for (const { cert } of batch) {
        const x509 = new X509Certificate(cert);
        if (!x509.verify(x509.publicKey)) throw new Error(`round ${round}: the signature does not verify`);
        serials.add(x509.serialNumber);
      }
    }
    expect(serials.size).toBe(10_000);
  }, 300_000);
});
