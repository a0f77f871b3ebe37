import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { createCostMetrics } from "../../telemetry/cost-metrics.ts";
import { BalanceBook } from "./book.ts";

const resource = (name: string, secret: string, amount?: string): KubeObject => ({
  metadata: { name, namespace: "shop", annotations: { secret } },
  status: amount === undefined ? {} : { cost: { hourly: { amount, currency: "USD" } } },
});

async function scrape(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split("\n").filter((line) => line.startsWith("berth_"));
}

describe("cost metrics from the balance book", () => {
  it("one series per costed resource and per credential (key hash), gone when the resource or credential goes", async () => {
    let apps = [
      resource("web", "shop/creds", "0.0120"),
      resource("api", "shop/creds", "0.0560"),
      resource("new", "shop/creds"),
    ];
    const orders = [resource("batch", "shop/other", "0.1040")];
    const book = new BalanceBook(
      [
        { kind: "App", list: () => apps },
        { kind: "ServerOrder", list: () => orders },
      ],
      (object) => object.metadata.annotations?.secret,
    );
    const registry = new Registry();
    createCostMetrics(registry).track(book);
    book.set("shop/creds", {
      credential: "key-aaa",
      balance: { amount: "1.6320", currency: "USD" },
      dueAt: 0,
      low: false,
    });
    // Another Secret holding the same key: one credential, its resources together.
    book.set("shop/other", {
      credential: "key-aaa",
      balance: { amount: "1.6320", currency: "USD" },
      dueAt: 0,
      low: false,
    });

    expect(await scrape(registry)).toEqual([
      'berth_resource_hourly_cost{kind="App",namespace="shop",name="web",currency="USD"} 0.012',
      'berth_resource_hourly_cost{kind="App",namespace="shop",name="api",currency="USD"} 0.056',
      'berth_resource_hourly_cost{kind="ServerOrder",namespace="shop",name="batch",currency="USD"} 0.104',
      'berth_credential_balance{credential="key-aaa",currency="USD"} 1.632',
      'berth_credential_hourly_spend{credential="key-aaa",currency="USD"} 0.172',
      'berth_credential_runway_hours{credential="key-aaa"} 9.488372093023257',
      'berth_resources_insufficient_balance{kind="App"} 0',
      'berth_resources_insufficient_balance{kind="ServerOrder"} 0',
    ]);

    const deferred = { conditions: [{ type: "Stalled", status: "True", reason: "InsufficientBalance" }] };
    apps = [
      ...apps.filter((a) => a.metadata.name !== "api"),
      { ...resource("late", "shop/creds"), status: deferred },
    ];
    book.delete("shop/other");
    book.set("shop/creds", { credential: "key-aaa", balance: undefined, dueAt: 0, low: false });
    expect(await scrape(registry)).toEqual([
      'berth_resource_hourly_cost{kind="App",namespace="shop",name="web",currency="USD"} 0.012',
      'berth_resource_hourly_cost{kind="ServerOrder",namespace="shop",name="batch",currency="USD"} 0.104',
      'berth_credential_hourly_spend{credential="key-aaa",currency="USD"} 0.012',
      'berth_resources_insufficient_balance{kind="App"} 1',
      'berth_resources_insufficient_balance{kind="ServerOrder"} 0',
    ]);
  });
});
