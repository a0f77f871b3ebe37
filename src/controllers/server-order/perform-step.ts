import type { ServerOrder } from "../../api/server-order.ts";
import type { HostingClient } from "../../hosting/index.ts";
import type { PerformContext } from "../skeleton/kind.ts";
import type { OrderKnowledge } from "./memory.ts";
import type { OrderPolls } from "./plan-common.ts";

export type OrderPerformContext = PerformContext<ServerOrder, OrderKnowledge>;

/** What one action's steps share. */
export interface OrderStep {
  context: OrderPerformContext;
  polls: OrderPolls;
  /** The connection's client (a TypeError without one). */
  client(): HostingClient;
  /** A Normal event naming the action, quoting the request ID. */
  event(reason: string, requestId: string | undefined, note: string): void;
}
