import { z } from "zod";
import type { Principal } from "../auth.ts";
import type { Executed } from "../http/server.ts";
import type { World } from "../store/world.ts";
import { callTool } from "./call-tool.ts";
import { INVALID_PARAMS, type JsonRpcRequest, METHOD_NOT_FOUND, parseParams, RpcFailure } from "./jsonrpc.ts";
import type { Tool } from "./tool-table.ts";

const LATEST_PROTOCOL_VERSION = "2025-11-25";
/**
 * Newest first; `initialize` echoes the client's version when listed, else offers the newest.
 * 2025-03-26 is left out: it requires servers to accept JSON-RPC batches, which the hosting spec refuses.
 */
export const PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2024-11-05"];

const SERVER_INFO = { name: "berth-simulator", title: "berth hosting API simulator", version: "0.1.0" };
const INSTRUCTIONS =
  "Tools of the container hosting service (simulated). Creates need a new idempotencyKey; destructive tools need confirm: true, set only when the user asked for that action. Start with read_docs.";

const initializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({}),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
});
const listParams = z.looseObject({ cursor: z.string().optional() });
const callParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

export interface MethodContext {
  world: World;
  principal: Principal;
  tools: ReadonlyMap<string, Tool>;
  requestId: string;
  /** Destroys the connection (a fault that acts, then drops the answer). */
  drop(): void;
}

export interface Handled {
  result: unknown;
  /** Names the request in the request log and stats: `mcp:<tool>` for a tool call. */
  operation: string;
  /** The operation's reply, for a tool call that reached it. */
  executed?: Executed;
}

/** Answers one JSON-RPC request; a protocol error is thrown as an `RpcFailure`. */
export async function handleRequest(context: MethodContext, request: JsonRpcRequest): Promise<Handled> {
  const operation = `mcp:${request.method}`;
  switch (request.method) {
    case "initialize": {
      const { protocolVersion } = parseParams(initializeParams, request.params, request.method);
      return {
        operation,
        result: {
          protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion)
            ? protocolVersion
            : LATEST_PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        },
      };
    }
    case "ping":
      return { operation, result: {} };
    case "tools/list": {
      const { cursor } = parseParams(listParams, request.params, request.method);
      if (cursor !== undefined)
        throw new RpcFailure(INVALID_PARAMS, "invalid cursor: tools/list has one page");
      return { operation, result: { tools: [...context.tools.values()].map((t) => t.listing) } };
    }
    case "tools/call": {
      const { name, arguments: args } = parseParams(callParams, request.params, request.method);
      const tool = context.tools.get(name);
      // The MCP spec makes an unknown tool a protocol error (invalid params), not a tool error.
      if (tool === undefined) throw new RpcFailure(INVALID_PARAMS, `unknown tool: ${name}`);
      const { world, principal, requestId, drop } = context;
      const { result, executed } = await callTool(world, tool, args ?? {}, principal, requestId, drop);
      return { operation: `mcp:${name}`, result, executed };
    }
    default:
      throw new RpcFailure(METHOD_NOT_FOUND, `method not found: ${request.method}`);
  }
}
