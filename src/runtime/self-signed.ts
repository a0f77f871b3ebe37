import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";

/** A PEM certificate and its PEM private key. */
export interface Certificate {
  cert: string;
  key: string;
}

// A minimal DER writer: just what an X.509 v3 certificate needs.
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const length = body.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), body]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), body]);
}

const sequence = (...content: Buffer[]) => der(0x30, ...content);

function oid(text: string): Buffer {
  const [first = 0, second = 0, ...rest] = text.split(".").map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = arc >>> 7; value > 0; value >>>= 7) chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, "").slice(2, 14);
  return der(0x17, Buffer.from(`${text}Z`));
}

function name(commonName: string): Buffer {
  return sequence(der(0x31, sequence(oid("2.5.4.3"), der(0x0c, Buffer.from(commonName)))));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  const [head = "", tail = ""] = ip.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(ip.includes("::") ? missing : 0).fill("0"), ...groups(tail)];
  return Buffer.from(
    all.flatMap((group) => [Number.parseInt(group, 16) >> 8, Number.parseInt(group, 16) & 0xff]),
  );
}

/** subjectAltName: DNS names as [2], IP addresses as [7]. */
function subjectAltNames(hosts: readonly string[]): Buffer {
  const names = hosts.map((host) =>
    isIP(host) === 0 ? der(0x82, Buffer.from(host)) : der(0x87, ipBytes(host)),
  );
  return sequence(oid("2.5.29.17"), der(0x04, sequence(...names)));
}

/**
 * A self-signed ECDSA P-256 certificate for `hosts`, valid from an hour ago for `days`: what
 * controller-runtime serves secure metrics with when no certificate is mounted. Prometheus scrapes
 * it with `insecureSkipVerify`; the bearer token, not the certificate, is what is checked.
 */
export function selfSignedCertificate(hosts: readonly string[], days = 365, now = new Date()): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ecdsaWithSha256 = sequence(oid("1.2.840.10045.4.3.2"));
  const subject = name(hosts[0] ?? "berth");
  // A positive serial: 16 random bytes with the top bit cleared.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaWithSha256,
    subject,
    sequence(
      utcTime(new Date(now.getTime() - 3_600_000)),
      utcTime(new Date(now.getTime() + days * 86_400_000)),
    ),
    subject,
    publicKey.export({ type: "spki", format: "der" }),
    der(0xa3, sequence(subjectAltNames(hosts))),
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), signature));
  const base64 = certificate.toString("base64").replace(/.{64}/g, "$&\n");
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}
