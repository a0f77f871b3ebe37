import { createHash, randomBytes } from "node:crypto";

/**
 * Id generator. With a seed every kind has its own deterministic stream, so request ids never
 * shift resource ids; without one, ids are random.
 */
export class IdSource {
  readonly #seed: string | undefined;
  readonly #counters = new Map<string, number>();
  #pool = Buffer.alloc(0);
  #poolAt = 0;

  constructor(seed?: string) {
    this.#seed = seed;
  }

  hex(kind: string, length: number): string {
    if (this.#seed === undefined) return this.#randomHex(length);
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    let out = "";
    for (let block = 0; out.length < length; block++) {
      out += createHash("sha256").update(`${this.#seed}:${kind}:${n}:${block}`).digest("hex");
    }
    return out.slice(0, length);
  }

  /** Random hex from a pooled buffer: every request takes an id, and randomBytes per call is costly. */
  #randomHex(length: number): string {
    const bytes = Math.ceil(length / 2);
    if (this.#poolAt + bytes > this.#pool.length) {
      this.#pool = randomBytes(4096);
      this.#poolAt = 0;
    }
    const out = this.#pool.toString("hex", this.#poolAt, this.#poolAt + bytes).slice(0, length);
    this.#poolAt += bytes;
    return out;
  }

  /** 24 hex characters: projects and apps. */
  objectId(kind: string): string {
    return this.hex(kind, 24);
  }

  guid(): string {
    const h = this.hex("grid", 32);
    const variant = ((Number.parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  serverAddress(): string {
    return `0x${this.hex("server", 40)}`;
  }

  prefixed(prefix: string): string {
    return `${prefix}_${this.hex(prefix, 24)}`;
  }
}
