import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  fastPolls,
  hasCondition,
  reconciledMore,
  reconciles,
  until,
  useOperatorEnvironment,
} from "./support.ts";

// Balance, spend and runway per credential, as metrics and a Warning on the credentials Secret.

const web = {
  projectRef: { name: "shop" },
  image: "nginx:1.27",
  ports: [{ port: 80, protocol: "http80_load_balancer" }],
};

async function series(registry: Registry, name: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const line of (await registry.metrics()).split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const [labels = "", value = ""] = line.slice(name.length).split(" ");
    found.set(labels, Number(value));
  }
  return found;
}

describe("Balance and runway", () => {
  const env = useOperatorEnvironment();

  async function start(scopes?: string[]) {
    const account = await env.setUp({ balance: 1, ...(scopes === undefined ? {} : { scopes }) });
    const registry = new Registry();
    await env.startOperator({
      registry,
      settings: { polls: fastPolls, stalledRetryMs: 2000, balanceIntervalMs: 300 },
    });
    await env.create("projects", "shop", {});
    await env.create("apps", "web", web);
    const cost = (o: Parameters<ReturnType<typeof hasCondition>>[0]) =>
      hasCondition("Ready")(o) && (o?.status as { cost?: unknown } | undefined)?.cost !== undefined;
    await env.waitFor("apps", "web", cost, 40_000);
    return { account, registry };
  }

  it("reads the balance in the background, and the runway falls as the service's clock runs", async () => {
    const { account, registry } = await start();
    const runway = async () => [...(await series(registry, "berth_credential_runway_hours")).values()][0];
    await until(async () => (await runway()) !== undefined, "a runway");
    const balance = await series(registry, "berth_credential_balance");
    const [labels] = [...balance.keys()];
    expect(labels).toMatch(/^\{credential="key-[0-9a-f]{12}",currency="USD"\}$/);
    expect(labels).not.toContain(account.token);
    expect(await series(registry, "berth_credential_hourly_spend")).toEqual(new Map([[labels, 0.012]]));
    expect(await series(registry, "berth_resource_hourly_cost")).toEqual(
      new Map([[`{kind="App",namespace="${env.namespace}",name="web",currency="USD"}`, 0.012]]),
    );
    // 1 USD at 0.012 USD/h: about 83 h, no warning yet.
    const first = (await runway()) ?? 0;
    expect(first).toBeGreaterThan(80);
    expect(first).toBeLessThanOrEqual(1 / 0.012);
    expect(await env.eventReasons("berth-credentials")).not.toContain("BalanceRunwayLow");

    // 65 simulated hours later about 18 h are left: one Warning on the Secret, and only one.
    env.sim.advanceClock(65 * 3600);
    await until(async () => ((await runway()) ?? 99) < 24, "the runway to fall under 24 h");
    expect((await runway()) ?? 0).toBeGreaterThan(first - 65 - 1);
    await env.waitForEvent("berth-credentials", "BalanceRunwayLow");
    // Later looks read the balance again, still under 24 h: no second Warning (nor a repeat in its series).
    const looks = await reconciles(registry, "billing");
    const read = env.requests("getBalance").length;
    await reconciledMore(registry, "billing", looks, 3);
    expect(env.requests("getBalance").length).toBeGreaterThan(read);
    expect(await env.eventCount("berth-credentials", "BalanceRunwayLow")).toBe(1);
    const notes = await env.eventNotes("berth-credentials", "BalanceRunwayLow");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/credential key-[0-9a-f]{12} \(0\.\d+ USD\) lasts \d+\.\d h/);
    expect(notes[0]).not.toContain(account.token);
    // The reads are background work, a few per interval, not one per App change.
    const reads = env.requests("getBalance").length;
    expect(reads).toBeGreaterThan(1);
  });

  it("without billing:read: no billing call, no balance or runway", async () => {
    const { registry } = await start(["projects:admin", "apps:write", "compute:spend"]);
    // Looks at the credential of the costed App, each after the interval (a balance read would be due).
    await reconciledMore(registry, "billing", await reconciles(registry, "billing"), 3);
    expect(env.requests("getBalance")).toEqual([]);
    expect(env.requests("getCosts")).toEqual([]);
    expect(await series(registry, "berth_credential_balance")).toEqual(new Map());
    expect(await series(registry, "berth_credential_runway_hours")).toEqual(new Map());
  });
});
