import { z } from "zod";
import { accrue, costsBetween, type Invoice, invoicesOf } from "../domain/billing.ts";
import { notFound, validationFailed } from "../errors.ts";
import { pageQuery } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import { textPdf } from "../pdf.ts";
import { formatMoney } from "../store/money.ts";
import type { User } from "../store/records.ts";

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "is not a real date");

function invoiceView(invoice: Invoice) {
  return {
    number: invoice.number,
    period: invoice.period,
    amount: formatMoney(invoice.amount),
    currency: "USD",
    status: invoice.status,
    issuedAt: invoice.issuedAt === null ? null : new Date(invoice.issuedAt).toISOString(),
  };
}

function findInvoice(user: User, number: string, now: number): Invoice {
  const invoice = invoicesOf(user, now).find((i) => i.number === number);
  if (invoice === undefined) throw notFound("invoice", number);
  return invoice;
}

export const billingRoutes = [
  defineRoute({
    operation: "getBalance",
    method: "GET",
    path: "/billing/balance",
    scopes: ["billing:read"],
    handle: ({ world, principal: { user }, now }) => {
      accrue(world, user, now);
      return { status: 200, body: { balance: formatMoney(user.balance), currency: "USD" } };
    },
  }),
  defineRoute({
    operation: "getCosts",
    method: "GET",
    path: "/billing/costs",
    scopes: ["billing:read"],
    query: z.object({ from: date.optional(), to: date.optional() }).strict(),
    handle: ({ world, principal: { user }, query, now }) => {
      accrue(world, user, now);
      const today = new Date(now).toISOString().slice(0, 10);
      const from = query.from ?? `${today.slice(0, 8)}01`;
      const to = query.to ?? today;
      if (from > to) throw validationFailed([{ path: "query.from", message: "must not be after to" }]);
      const items = costsBetween(user, from, to);
      const total = items.reduce((sum, i) => sum + i.amount, 0);
      return {
        status: 200,
        body: {
          currency: "USD",
          from,
          to,
          total: formatMoney(total),
          items: items.map((i) => ({ ...i, amount: formatMoney(i.amount) })),
        },
      };
    },
  }),
  defineRoute({
    operation: "listInvoices",
    method: "GET",
    path: "/billing/invoices",
    scopes: ["billing:read"],
    query: z.object(pageQuery).strict(),
    handle: ({ world, principal: { user }, query, now }) => {
      accrue(world, user, now);
      const page = paginate(invoicesOf(user, now), { ...query, filters: {}, cutting: pageCutting(world) });
      return { status: 200, body: { items: page.items.map(invoiceView), nextCursor: page.nextCursor } };
    },
  }),
  defineRoute({
    operation: "getInvoice",
    method: "GET",
    path: "/billing/invoices/{invoiceNumber}",
    scopes: ["billing:read"],
    handle: ({ world, principal: { user }, param, now }) => {
      accrue(world, user, now);
      return { status: 200, body: invoiceView(findInvoice(user, param("invoiceNumber"), now)) };
    },
  }),
  defineRoute({
    operation: "getInvoicePdf",
    method: "GET",
    path: "/billing/invoices/{invoiceNumber}/pdf",
    scopes: ["billing:read"],
    handle: ({ world, principal: { user }, param, now }) => {
      accrue(world, user, now);
      const invoice = findInvoice(user, param("invoiceNumber"), now);
      const data = textPdf([
        `Invoice ${invoice.number}`,
        `Period: ${invoice.period}`,
        `Customer: ${user.email}`,
        `Amount due: ${formatMoney(invoice.amount)} USD`,
        `Status: ${invoice.status}`,
      ]);
      return { status: 200, binary: { contentType: "application/pdf", data } };
    },
  }),
];
