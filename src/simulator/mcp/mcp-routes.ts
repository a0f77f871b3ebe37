import { z } from "zod";
import { defineRoute } from "../http/route.ts";
import { formatMoney, MICROS, parseMoney } from "../store/money.ts";
import { docs, docTopics, templates } from "./content.ts";

const MIN_CREDITS = 5 * MICROS;
const MAX_CREDITS = 10_000 * MICROS;
/** How long a hosted payment page stays open (simulated seconds). */
const PAYMENT_LINK_TTL_SEC = 3600;

const amount = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const micros = parseMoney(value);
  if (micros === undefined || micros < MIN_CREDITS || micros > MAX_CREDITS) {
    ctx.addIssue({
      code: "custom",
      message: 'must be a decimal amount from 5 to 10000, such as 25 or "12.50"',
    });
    return z.NEVER;
  }
  return micros;
});

/**
 * Operations only the MCP server offers. They are not served over REST, but run through the same
 * `execute` as REST operations (frozen account, scopes, input checks, injected faults by name).
 */
export const mcpOnlyRoutes = [
  defineRoute({
    operation: "readDocs",
    method: "GET",
    path: "/mcp/docs",
    scopes: [],
    body: z
      .object({ topic: z.enum(docTopics).optional() })
      .strict()
      .optional(),
    handle: ({ body }) => {
      const topic = body?.topic;
      if (topic === undefined) {
        const topics = docTopics.map((id) => ({ topic: id, title: docs[id].title }));
        return { status: 200, body: { topics } };
      }
      return { status: 200, body: { topic, ...docs[topic] } };
    },
  }),
  defineRoute({
    operation: "listTemplates",
    method: "GET",
    path: "/mcp/templates",
    scopes: [],
    handle: () => ({ status: 200, body: { items: templates, nextCursor: null } }),
  }),
  defineRoute({
    operation: "addCredits",
    method: "POST",
    path: "/mcp/credits",
    scopes: ["billing:write"],
    body: z.object({ amount }).strict(),
    handle: ({ world, body, now }) => {
      const id = world.ids.prefixed("pay");
      const formatted = formatMoney(body.amount);
      return {
        status: 200,
        body: {
          paymentUrl: `https://pay.sim.berth.dev/checkout/${id}?amount=${formatted}&currency=USD`,
          amount: formatted,
          currency: "USD",
          expiresAt: new Date(now + PAYMENT_LINK_TTL_SEC * 1000).toISOString(),
          charged: false,
        },
      };
    },
  }),
];
