import { z } from "zod";

/** JSON-RPC 2.0 envelopes as MCP uses them (ids are strings or numbers, never null). */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

export type RequestId = string | number;

const id = z.union([z.string(), z.number()]);
const params = z.record(z.string(), z.unknown()).optional();

const requestSchema = z.object({ jsonrpc: z.literal("2.0"), id, method: z.string().min(1), params });
const notificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.never().optional(),
  method: z.string().min(1),
  params,
});
/** A client's answer to a server request (this server sends none, so it is only acknowledged). */
const responseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id, result: z.record(z.string(), z.unknown()) }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: id.nullable(),
    error: z.object({ code: z.number().int(), message: z.string() }),
  }),
]);

export type JsonRpcRequest = z.output<typeof requestSchema>;

export type Message =
  | { kind: "request"; request: JsonRpcRequest }
  | { kind: "notification"; method: string }
  | { kind: "response" }
  | { kind: "invalid"; id: RequestId | null; reason: string };

/** Classifies one parsed JSON value (not an array: batches are refused before this). */
export function classify(value: unknown): Message {
  const request = requestSchema.safeParse(value);
  if (request.success) return { kind: "request", request: request.data };
  const notification = notificationSchema.safeParse(value);
  if (notification.success) return { kind: "notification", method: notification.data.method };
  if (responseSchema.safeParse(value).success) return { kind: "response" };
  const given = id.safeParse((value as { id?: unknown } | null)?.id);
  return {
    kind: "invalid",
    id: given.success ? given.data : null,
    reason: 'not a JSON-RPC 2.0 request: expected {"jsonrpc": "2.0", "id", "method", "params"?}',
  };
}

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export function success(requestId: RequestId, result: unknown) {
  return { jsonrpc: "2.0", id: requestId, result };
}

export function failure(requestId: RequestId | null, error: RpcError) {
  return { jsonrpc: "2.0", id: requestId, error };
}

/** Thrown by method handlers; answered as a JSON-RPC error response. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcFailure";
    this.code = code;
    this.data = data;
  }

  toError(): RpcError {
    return {
      code: this.code,
      message: this.message,
      ...(this.data === undefined ? {} : { data: this.data }),
    };
  }
}

/** Parses a method's params; a mismatch is -32602 with the problems as `data`. */
export function parseParams<S extends z.ZodType>(schema: S, value: unknown, method: string): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  throw new RpcFailure(INVALID_PARAMS, `invalid params for ${method}`, { problems });
}
