// docs/troubleshooting/reasons.yaml as the code reads it: apart from the generator (troubleshooting.ts)
// so that a reader of the reasons (the chaos checker) loads none of the modules that define them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { z } from "zod";

export const reasonsSourcePath = fileURLToPath(
  new URL("../../docs/troubleshooting/reasons.yaml", import.meta.url),
);

/** The conditions a reason is written under, in the order the page lists them. */
export const conditionOrder = [
  "Stalled",
  "Reconciling",
  "Ready",
  "Built",
  "EndpointReady",
  "Ordered",
  "Replaced",
] as const;
export type ConditionName = (typeof conditionOrder)[number];

export const entrySchema = z.strictObject({ means: z.string().min(1), do: z.string().min(1) });
const reasonEntrySchema = entrySchema.extend({ conditions: z.array(z.enum(conditionOrder)) });

export const reasonsSourceSchema = z.strictObject({
  reasons: z.record(z.string(), reasonEntrySchema),
  startup: z.strictObject({
    operator: z.record(z.string(), entrySchema),
    controlPlane: z.record(z.string(), entrySchema),
  }),
  notes: z.array(z.string()).default([]),
});
export type ReasonsSource = z.output<typeof reasonsSourceSchema>;

export function readReasonsSource(path = reasonsSourcePath): ReasonsSource {
  return reasonsSourceSchema.parse(parse(readFileSync(path, "utf8")));
}
