import { z } from "zod";
import { createHostingClient } from "../../hosting/index.ts";
import { defineCommand } from "../command.ts";
import { importManifests, renderImport } from "../import/manifests.ts";
import { readInventory } from "../import/read.ts";

export const importCommand = defineCommand({
  name: "import",
  summary:
    "list what an account has at the service (projects and their apps, grids, servers by order) and print Observe-only manifests that adopt them",
  flags: {
    "api-key": { description: "the hosting API key to read with (better: BERTH_API_KEY)" },
    "hosting-base-url": { description: "hosting API base URL ending in /v1" },
    namespace: { description: "namespace to put in the manifests (default: none, kubectl's)", short: "n" },
  },
  config: z.object({
    apiKey: z.string().min(1, "give the key with --api-key or BERTH_API_KEY"),
    hostingBaseUrl: z.url({
      protocol: /^https?$/,
      message: "must be an http(s) URL such as https://api.example.com/v1",
    }),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a namespace name")
      .optional(),
  }),
  async run(config, { stdout, stderr }) {
    let made = 0;
    let limit: number | undefined;
    const client = createHostingClient({
      baseUrl: config.hostingBaseUrl,
      apiKey: config.apiKey,
      observer: {
        onRequest: () => {
          made += 1;
        },
        onBudget: (event) => {
          limit = event.limit ?? limit;
        },
      },
    });
    try {
      const inventory = await readInventory(client);
      stdout.write(renderImport(importManifests(inventory, config.namespace), { made, limit }));
      stderr.write(`berth import: ${made} calls to the service\n`);
      return 0;
    } finally {
      await client.close();
    }
  },
});
