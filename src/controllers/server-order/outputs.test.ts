import { describe, expect, it } from "vitest";
import { type ServerOrderStatus, serverOrderSchema } from "../../api/server-order.ts";
import { serverOrderOutputs } from "./outputs.ts";

const order = serverOrderSchema.parse({
  apiVersion: "berth.dev/v1alpha1",
  kind: "ServerOrder",
  metadata: { name: "gpus" },
  spec: { csp: "aws", region: "eu", instanceType: "g5", outputs: { configMapName: "gpus-outputs" } },
});
const a = `0x${"a".repeat(40)}`;
const b = `0x${"b".repeat(40)}`;

describe("serverOrderOutputs", () => {
  it.each<[string, ServerOrderStatus, Record<string, string>]>([
    ["estimated only: no keys", { estimate: { hourlyCost: "1.00", currency: "USD" } }, {}],
    ["ordered, servers not listed yet: the order's ID", { orderId: "o-1" }, { orderId: "o-1" }],
    [
      "listed, none yet: an empty list and 0",
      { orderId: "o-1", servers: [] },
      { orderId: "o-1", servers: "", count: "0" },
    ],
    [
      "delivered: addresses one a line, and their count",
      { orderId: "o-1", servers: [{ address: a, state: "running" }, { address: b }] },
      { orderId: "o-1", servers: `${a}\n${b}`, count: "2" },
    ],
  ])("%s", (_, status, expected) => {
    expect(serverOrderOutputs(order, status)).toEqual(expected);
  });
});
