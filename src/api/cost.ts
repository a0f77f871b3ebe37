import { z } from "zod";
import type { PrinterColumn } from "./resource.ts";

/** A decimal amount as the service writes it, e.g. "0.0520". */
export const decimalAmount = /^-?\d+(\.\d+)?$/;

export const moneySchema = z
  .object({
    amount: z
      .string()
      .max(32)
      .regex(decimalAmount, "must be a decimal number written as a string")
      .describe("The amount, a decimal string exactly as the service states it."),
    currency: z.string().max(8).describe("Currency of the amount, as the service states it (e.g. USD)."),
  })
  .describe("An amount of money.");

export const costStatusSchema = z
  .object({
    hourly: moneySchema
      .optional()
      .describe(
        "What the service charges per hour for this now, as it states it; absent when the service does not say.",
      ),
  })
  .describe("What this costs at the hosting service.");

export type Money = z.output<typeof moneySchema>;
export type CostStatus = z.output<typeof costStatusSchema>;

export const costColumn: PrinterColumn = {
  name: "COST/H",
  type: "string",
  jsonPath: ".status.cost.hourly.amount",
  description: "What the service charges per hour now (currency in status.cost.hourly).",
};
