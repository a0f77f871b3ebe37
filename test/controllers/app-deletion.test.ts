import { describe, expect, it } from "vitest";
import { hasCondition, useOperatorEnvironment } from "./support.ts";

// Deleting an App costs a stop and a delete: once the stop berth asked for should be over, the
// delete itself is the look at the app (the service refuses it while the app is still stopping),
// so no status read comes between them, and a slow stop costs a refused delete, not a leak.
describe("App deletion within the budget", () => {
  const env = useOperatorEnvironment();

  async function readyApp(name: string): Promise<string> {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", name, { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const ready = await env.waitFor("apps", name, hasCondition("Ready"));
    return ready?.status?.appId ?? "";
  }

  /** The calls about one app from its stop on, as `operation status`. */
  function callsSinceStop(): string[] {
    const calls = env.requests().map((r) => `${r.operation} ${r.status}`);
    return calls.slice(calls.findIndex((c) => c.startsWith("stopApp")));
  }

  it("stops, then deletes once the stop should be over: two calls", async () => {
    await readyApp("doomed");
    await env.remove("apps", "doomed");
    await env.waitFor("apps", "doomed", (a) => a === undefined);
    expect(callsSinceStop()).toEqual(["stopApp 202", "deleteApp 204"]);
  });

  it("a stop slower than expected costs a refused delete, then the app is deleted", async () => {
    await readyApp("slow");
    // 6 simulated seconds at ×20 (0.3 s): twice the stop time berth expects.
    env.sim.setTimings({ stop: 6 });
    try {
      await env.remove("apps", "slow");
      await env.waitFor("apps", "slow", (a) => a === undefined, 20_000);
    } finally {
      env.sim.setTimings({ stop: 2 });
    }
    const calls = callsSinceStop();
    expect(calls[0]).toBe("stopApp 202");
    expect(calls).toContain("deleteApp 409");
    expect(calls.at(-1)).toBe("deleteApp 204");
    expect(calls.filter((c) => c.startsWith("deleteApp 204"))).toHaveLength(1);
  });
});
