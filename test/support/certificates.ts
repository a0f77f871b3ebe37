import { KeyObject, webcrypto } from "node:crypto";
import { connect } from "node:tls";
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API first.
import "reflect-metadata";
import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";

export interface Issued {
  cert: string;
  key: string;
  /** Upper-case hex, as a TLS peer certificate reports it. */
  serial: string;
}

type Provider = Parameters<typeof X509CertificateGenerator.create>[1];
const provider = webcrypto as Provider;
const ecdsa = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

const pem = (keys: webcrypto.CryptoKeyPair) =>
  KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" }).toString();

/** A CA as cert-manager's bootstrap makes one, and a way to issue serving certificates from it. */
export async function certificateAuthority() {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"]);
  const ca = await X509CertificateGenerator.createSelfSigned(
    {
      name: "CN=berth-metrics-ca",
      keys,
      signingAlgorithm: ecdsa,
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      ],
    },
    provider,
  );
  return {
    cert: ca.toString("pem"),
    async issue(names: string[]): Promise<Issued> {
      const leafKeys = await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"]);
      const leaf = await X509CertificateGenerator.create(
        {
          subject: `CN=${names[0]}`,
          issuer: ca.subject,
          publicKey: leafKeys.publicKey,
          signingKey: keys.privateKey,
          signingAlgorithm: ecdsa,
          extensions: [
            new BasicConstraintsExtension(false),
            new SubjectAlternativeNameExtension(names.map((value) => ({ type: "dns", value }))),
          ],
        },
        provider,
      );
      return { cert: leaf.toString("pem"), key: pem(leafKeys), serial: leaf.serialNumber.toUpperCase() };
    },
  };
}

/** The chain a client trusting only `ca` accepts for `servername`, and the serial it was served. */
export async function handshake(address: string, ca: string, servername: string) {
  const port = Number(address.slice(address.lastIndexOf(":") + 1));
  return await new Promise<{ authorized: boolean; error?: string; serial: string }>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, ca, servername, rejectUnauthorized: false }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      const error = socket.authorizationError;
      resolve({ authorized: socket.authorized, serial, ...(error ? { error: String(error) } : {}) });
      socket.end();
    });
    socket.on("error", reject);
  });
}
