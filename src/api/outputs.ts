import { z } from "zod";
import { withRules } from "./kube-schema.ts";

/** A DNS-1123 subdomain: what the apiserver accepts as a ConfigMap's name. */
const configMapNamePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Marks a berth output ConfigMap (label and annotation) while its resource is Ready; absent otherwise. */
export const outputReadyKey = "berth.dev/ready";

export const outputsSpecSchema = z
  .object({
    configMapName: withRules(z.string().min(1).max(253), [
      {
        rule: `self.matches('${configMapNamePattern.source}')`,
        message:
          "spec.outputs.configMapName must be a valid ConfigMap name: lowercase letters, digits, '-' and '.', " +
          "starting and ending with a letter or digit",
        holds: (name) => configMapNamePattern.test(name),
      },
    ]).describe(
      "ConfigMap in this namespace that berth writes this resource's outputs to (IDs, addresses), owned by " +
        `the resource so it is deleted with it. Labeled and annotated ${outputReadyKey}: "true" while the ` +
        "resource is Ready. berth never overwrites a ConfigMap it did not create (Stalled OutputConflict).",
    ),
  })
  .describe("Where to publish values other workloads can consume.");

export const outputsStatusSchema = z
  .object({
    configMapName: z
      .string()
      .max(253)
      .describe("The ConfigMap berth wrote the outputs to; deleted when spec.outputs changes."),
  })
  .describe("The outputs berth last wrote.");

export type OutputsSpec = z.output<typeof outputsSpecSchema>;
