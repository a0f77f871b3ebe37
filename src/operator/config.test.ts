import { describe, expect, it } from "vitest";
import { operatorConfigSchema } from "./config.ts";

describe("operator configuration", () => {
  it("has the documented defaults", () => {
    expect(operatorConfigSchema.parse({})).toEqual({
      namespaces: [],
      metricsAddr: ":8080",
      metricsSecure: true,
      metricsCertDir: undefined,
      healthAddr: ":8081",
      leaderElect: false,
      leaderElectionNamespace: "default",
      watchLabelSelector: "",
      concurrency: 32,
      backgroundReserve: 0.1,
      defaultCredentials: undefined,
      driftInterval: 600_000,
      resourceBudgetShare: 0.2,
      shutdownGrace: 20_000,
      stuckAfter: 300_000,
      startTimeout: 60_000,
      logLevel: "info",
      paused: false,
      defaultManagementPolicies: undefined,
    });
  });

  it("reads the management defaults, refusing an unsupported combination", () => {
    const config = operatorConfigSchema.parse({ paused: true, defaultManagementPolicies: "Observe, Create" });
    expect([config.paused, config.defaultManagementPolicies]).toEqual([true, ["Observe", "Create"]]);
    expect(operatorConfigSchema.safeParse({ defaultManagementPolicies: "Create" }).success).toBe(false);
  });

  it.each([
    ["30s", 30_000],
    ["1h30m", 5_400_000],
    ["1500ms", 1500],
  ])("reads the duration %s", (text, ms) => {
    expect(operatorConfigSchema.parse({ driftInterval: text }).driftInterval).toBe(ms);
  });

  it.each([
    ["25%", 0.25],
    ["0", 0],
  ])("reads the background reserve %s", (text, share) => {
    expect(operatorConfigSchema.parse({ backgroundReserve: text }).backgroundReserve).toBe(share);
  });

  it("reads the default credentials as namespace/name", () => {
    expect(operatorConfigSchema.parse({ defaultCredentials: "berth-system/key" }).defaultCredentials).toEqual(
      {
        namespace: "berth-system",
        name: "key",
      },
    );
  });

  it("refuses a metrics certificate directory for plain-HTTP metrics, and reads an empty one as none", () => {
    const result = operatorConfigSchema.safeParse({ metricsCertDir: "/certs", metricsSecure: false });
    expect(result.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
      expect.stringMatching(/^metricsCertDir: needs --metrics-secure/),
    ]);
    expect(operatorConfigSchema.parse({ metricsCertDir: "", metricsSecure: false }).metricsCertDir).toBe(
      undefined,
    );
    expect(operatorConfigSchema.parse({ metricsCertDir: "/certs" }).metricsCertDir).toBe("/certs");
  });

  it("names each bad setting and what to write instead", () => {
    const result = operatorConfigSchema.safeParse({
      driftInterval: "10",
      defaultCredentials: "key",
      concurrency: "many",
      hostingBaseUrl: "ftp://x",
      watchLabelSelector: "berth.dev/shard in shard1",
      backgroundReserve: "95%",
    });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^driftInterval: must be a duration/),
        expect.stringMatching(/^defaultCredentials: must be "namespace\/name"/),
        expect.stringMatching(/^concurrency: must be a whole number/),
        expect.stringMatching(/^hostingBaseUrl: must be an http\(s\) URL/),
        expect.stringMatching(/^watchLabelSelector: "berth.dev\/shard in shard1" is not a label selector/),
        expect.stringMatching(/^backgroundReserve: must be at most 90%/),
      ]),
    );
  });
});
