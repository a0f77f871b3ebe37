import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { ApiError, type ErrorDetail, validationFailed } from "../errors.ts";

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Past this much an oversized body is not drained any more: the connection is closed. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/** zod issues as `details[]`: dotted paths, unknown fields named one by one. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ""): ErrorDetail[] {
  return issues.flatMap((issue) => {
    const path = joinPath(prefix, issue.path);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: joinPath(path, [key]), message: `unknown field "${key}"` }));
    }
    return [{ path: path || "body", message: issue.message }];
  });
}

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error.issues, prefix));
  return parsed.data;
}

/** Query values: one value stays a string, a repeated parameter becomes an array. */
export function queryObject(search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** Ids are compared exactly: the spec never says an id is case-insensitive. */
export const asReturned = ", lowercase, exactly as the service returned it";

const pathPatterns: Record<string, { pattern: RegExp; says: string }> = {
  projectId: { pattern: /^[0-9a-f]{24}$/, says: `must be 24 hexadecimal characters${asReturned}` },
  appId: { pattern: /^[0-9a-f]{24}$/, says: `must be 24 hexadecimal characters${asReturned}` },
  gridId: {
    pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    says: `must be a GUID${asReturned}`,
  },
  address: {
    pattern: /^0x[0-9a-f]{40}$/,
    says: `must be 0x followed by 40 hexadecimal characters${asReturned}`,
  },
  buildId: { pattern: /^bld_[0-9a-f]{24}$/, says: "must be a build id (bld_ and 24 hexadecimal characters)" },
  orderId: {
    pattern: /^ord_[0-9a-f]{24}$/,
    says: "must be an order id (ord_ and 24 hexadecimal characters)",
  },
  invoiceNumber: { pattern: /^INV-\d{6}-\d{4}$/, says: "must look like INV-YYYYMM-NNNN" },
};

/** URL-decodes path values and checks the id formats (exactly: an uppercase id is refused). */
export function decodeParams(raw: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const details: ErrorDetail[] = [];
  for (const [name, encoded] of raw) {
    let value: string;
    try {
      value = decodeURIComponent(encoded);
    } catch {
      details.push({ path: `path.${name}`, message: "is not validly URL-encoded" });
      continue;
    }
    const rule = pathPatterns[name];
    if (rule !== undefined && !rule.pattern.test(value)) {
      details.push({ path: `path.${name}`, message: rule.says });
      continue;
    }
    out.set(name, value);
  }
  if (details.length > 0) throw validationFailed(details);
  return out;
}

/** Reads the body up to 1 MiB; an oversized body is drained (up to a cap) before answering 413. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const length = request.headers["content-length"];
  if ((length === undefined || length === "0") && request.headers["transfer-encoding"] === undefined) {
    return Buffer.alloc(0);
  }
  const declared = Number(length ?? "0");
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = declared > BODY_LIMIT_BYTES;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > BODY_LIMIT_BYTES) tooLarge = true;
    if (!tooLarge) chunks.push(buffer);
    if (size > DRAIN_LIMIT_BYTES) break;
  }
  if (tooLarge) {
    throw new ApiError(413, "payload_too_large", `the request body exceeds ${BODY_LIMIT_BYTES} bytes`, {
      limitBytes: BODY_LIMIT_BYTES,
    });
  }
  return Buffer.concat(chunks);
}

/** The JSON body, or undefined when empty. Requires Content-Type application/json when present. */
export function parseJsonBody(request: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "send the body as JSON with Content-Type: application/json",
    );
  }
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    // The parser's message quotes the body, which may hold secrets: never echo it.
    throw validationFailed([{ path: "body", message: "is not valid JSON" }]);
  }
}
