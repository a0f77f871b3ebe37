import { Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { createMetrics } from "../telemetry/metrics.ts";
import { Controller, type Source } from "./controller.ts";
import { Manager } from "./manager.ts";
import { Outcome } from "./outcome.ts";
import { AddressError, parseAddress } from "./probes.ts";

describe("parseAddress", () => {
  it("accepts :port, host:port and [v6]:port", () => {
    expect(parseAddress(":8080")).toEqual({ host: undefined, port: 8080 });
    expect(parseAddress("127.0.0.1:0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseAddress("[::1]:8081")).toEqual({ host: "::1", port: 8081 });
  });

  it("names the bad value and the expected form", () => {
    expect(() => parseAddress("8080")).toThrow(AddressError);
    expect(() => parseAddress("host:99999")).toThrow(/"host:99999" is not a listen address: use host:port/);
  });
});

describe("/healthz", () => {
  const logger = createLogger({ level: "silent" });

  /** An informer stand-in holding `keys`, already synced. */
  function source(keys: string[]): Source {
    const objects = keys.map((name) => ({
      apiVersion: "v1",
      kind: "Widget",
      metadata: { namespace: "ns", name },
    }));
    return { on: () => () => undefined, list: () => objects, waitForSync: async () => undefined };
  }

  async function healthz(manager: Manager): Promise<{ status: number; body: string }> {
    const response = await fetch(`http://${manager.addresses.health}/healthz`);
    return { status: response.status, body: await response.text() };
  }

  it("fails while a controller's workers make no progress and keys wait, and passes again once they do", async () => {
    let clock = Date.now();
    const now = () => clock;
    const release = Promise.withResolvers<void>();
    const metrics = createMetrics(new Registry());
    const controller = new Controller({
      name: "widgets",
      informer: source(["a", "b"]),
      logger,
      metrics,
      now,
      // One worker, wedged on the first key; the second waits.
      reconcile: async () => {
        await release.promise;
        return Outcome.done();
      },
    });
    const manager = new Manager({
      logger,
      metrics,
      healthAddr: "127.0.0.1:0",
      now,
      liveness: { stuckAfterMs: 60_000 },
    });
    manager.addController(controller);
    await manager.start();
    try {
      await vi.waitFor(() => expect(controller.progress().waiting).toBe(1));
      expect((await healthz(manager)).status).toBe(200);
      clock += 61_000;
      const stuck = await healthz(manager);
      expect(stuck.status).toBe(503);
      expect(stuck.body).toContain("controller widgets: 1 keys waiting");
      release.resolve();
      await vi.waitFor(() => expect(controller.progress().waiting).toBe(0));
      expect((await healthz(manager)).status).toBe(200);
    } finally {
      release.resolve();
      await manager.stop();
    }
  });

  it("fails after the event loop was blocked longer than the limit", async () => {
    const manager = new Manager({
      logger,
      metrics: createMetrics(new Registry()),
      healthAddr: "127.0.0.1:0",
      liveness: { maxLoopLagMs: 200 },
    });
    await manager.start();
    try {
      expect((await healthz(manager)).status).toBe(200);
      const blockedUntil = Date.now() + 1_000;
      while (Date.now() < blockedUntil) {
        // A synchronous stretch, as a runaway loop in a reconcile would be.
      }
      const blocked = await healthz(manager);
      expect(blocked.status).toBe(503);
      expect(blocked.body).toMatch(/event loop blocked for \d/);
    } finally {
      await manager.stop();
    }
  });
});
