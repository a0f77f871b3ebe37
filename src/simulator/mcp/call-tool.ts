import type { Principal } from "../auth.ts";
import { ApiError } from "../errors.ts";
import { decodeParams, parseWith } from "../http/inputs.ts";
import type { Route } from "../http/route.ts";
import { type Call, type Executed, errorBody, execute } from "../http/server.ts";
import type { World } from "../store/world.ts";
import { pathNames, type Tool } from "./tool-table.ts";

/** A `tools/call` result (MCP CallToolResult). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

interface ErrorObject {
  code: string;
  message: string;
  requestId: string;
}

/**
 * Runs one tool call as the REST operation it maps to, through the same `execute` REST uses, and
 * turns the reply into a tool result: `structuredContent` is the REST body (or `{error}` of REST's
 * error body, with `isError`), and one text item says the same.
 */
export async function callTool(
  world: World,
  tool: Tool,
  args: Record<string, unknown>,
  principal: Principal,
  requestId: string,
  drop: () => void,
): Promise<{ result: ToolResult; executed: Executed }> {
  let executed: Executed;
  try {
    const input = parseWith(tool.parser, args, "");
    const call = toCall(tool, tool.route(input), input, principal);
    // After the scope check: a key that may not do this at all is told so, not asked to confirm.
    call.afterScopes = () => {
      if (tool.spec.confirm === true && input.confirm !== true) {
        throw new ApiError(
          400,
          "confirmation_required",
          `${tool.spec.name} cannot be undone; call it with confirm: true only once the user asked for or confirmed this action`,
        );
      }
    };
    executed = await execute(world, call, requestId, drop);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const body = errorBody(error, requestId);
    executed = { status: error.status, body, headers: error.headers, replayed: false, dropped: false };
  }
  return { result: toResult(executed), executed };
}

/** Path values fill `{name}` in the operation's path; declared inputs are query values; the rest is the body. */
function toCall(tool: Tool, route: Route, input: Record<string, unknown>, principal: Principal): Call {
  const path = pathNames(route);
  const raw = new Map(path.map((name) => [name, encodeURIComponent(String(input[name]))]));
  const picker = typeof tool.spec.operation === "string" ? undefined : tool.spec.operation.input;
  const query: Record<string, string | string[]> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || path.includes(name) || name === picker) continue;
    if (name === "idempotencyKey" || name === "confirm") continue;
    if (tool.spec.inputs !== undefined && name in tool.spec.inputs) {
      query[name] = Array.isArray(value) ? value.map(String) : String(value);
    } else {
      body[name] = value;
    }
  }
  // An operation whose own body carries the confirmation (deprovisioning) gets it there too.
  if (input.confirm === true && tool.bodyFields.has("confirm")) body.confirm = true;
  const idempotencyKey = input.idempotencyKey;
  return {
    route,
    principal,
    params: decodeParams(raw),
    query,
    readBody: async () => (Object.keys(body).length === 0 ? undefined : body),
    idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
  };
}

function toResult(executed: Executed): ToolResult {
  if (executed.status >= 400) {
    const error = (executed.body as { error: ErrorObject }).error;
    return {
      content: [{ type: "text", text: `${error.code}: ${error.message} (request ${error.requestId})` }],
      structuredContent: { error },
      isError: true,
    };
  }
  const body = executed.body;
  const structured =
    body === undefined
      ? {}
      : typeof body === "object" && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : { items: body };
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}
