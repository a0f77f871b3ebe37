import { KeyObject, webcrypto } from "node:crypto";
import { isIP } from "node:net";
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API first.
import "reflect-metadata";
import { SubjectAlternativeNameExtension, X509CertificateGenerator } from "@peculiar/x509";

type KeyPair = webcrypto.CryptoKeyPair;
type Provider = Parameters<typeof X509CertificateGenerator.createSelfSigned>[1];

/** A PEM certificate and its PEM private key. */
export interface Certificate {
  cert: string;
  key: string;
}

export interface SelfSignedOptions {
  /** Days of validity from now (default 365); the certificate is valid from an hour ago. */
  days?: number;
  now?: Date;
  /** An ECDSA P-256 key pair to certify (tests reuse one); a new one by default. */
  keys?: KeyPair;
}

const ecdsa = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** A new ECDSA P-256 key pair, extractable so its private key can be served. */
export async function certificateKeys(): Promise<KeyPair> {
  return await webcrypto.subtle.generateKey(ecdsa, true, ["sign", "verify"]);
}

/**
 * A self-signed ECDSA P-256 serving certificate for `hosts` (DNS names and IP addresses): what
 * controller-runtime serves secure metrics with when no certificate is mounted. @peculiar/x509
 * writes the DER (a random serial, always a minimal positive INTEGER).
 */
export async function selfSignedCertificate(
  hosts: readonly string[],
  options: SelfSignedOptions = {},
): Promise<Certificate> {
  const now = options.now ?? new Date();
  const keys = options.keys ?? (await certificateKeys());
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      name: [{ CN: [hosts[0] ?? "berth"] }],
      notBefore: new Date(now.getTime() - 3_600_000),
      notAfter: new Date(now.getTime() + (options.days ?? 365) * 86_400_000),
      signingAlgorithm: ecdsa,
      keys,
      extensions: [
        new SubjectAlternativeNameExtension(
          hosts.map((host) => ({ type: isIP(host) === 0 ? "dns" : "ip", value: host })),
        ),
      ],
    },
    webcrypto as Provider,
  );
  const key = KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" }).toString();
  return { cert: certificate.toString("pem"), key };
}
