import { describe, expect, it } from "vitest";
import { hasCondition, useOperatorEnvironment } from "./support.ts";

/**
 * berth against the simulator's spec-strict default (no sample values): what berth sends for an
 * image App uses only what the service's spec shows, so it would work against the real service.
 */
describe("berth on the spec-strict simulator", () => {
  const env = useOperatorEnvironment({ profile: { base: "harsh" } });

  it("creates and runs an image App without a value the spec doesn't show, and never re-sends it", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
      instances: { min: 1, max: 2 },
    });
    await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
    const refused = env.requests().filter((r) => r.status === 400);
    expect(refused).toEqual([]);
    expect(env.requests("createApp").map((r) => r.status)).toEqual([201]);
    expect(env.requests("updateApp")).toEqual([]);
  });
});
