import { describe, expect, it } from "vitest";
import type { AppConfig } from "../store/records.ts";
import { planUpdate } from "./app-update.ts";

const config: AppConfig = {
  image: "nginx",
  ports: [{ port: 80, protocol: "http" }],
  instances: { min: 1, max: 2 },
  env: [
    { name: "TOKEN", value: "secret", secret: true },
    { name: "MODE", value: "prod", secret: false },
  ],
  volumes: [{ name: "data", mountPath: "/data", sizeGb: 1 }],
  hardware: { cpu: 1, memoryMb: 512 },
  placement: { region: "eu-central" },
  gridPriorities: { g1: 1 },
  command: ["run"],
};
const current = { name: "web", config };

describe("planUpdate", () => {
  it("replaces lists and the grid map, merges hardware and placement by key", () => {
    const plan = planUpdate(current, {
      config: {
        ports: [],
        env: [{ name: "NEW", value: "1", secret: false }],
        volumes: [],
        gridPriorities: { g2: 3 },
        hardware: { memoryMb: 1024, cpu: null },
        placement: { zone: "eu-central-1a" },
      },
    });
    expect(plan.config).toMatchObject({
      ports: [],
      env: [{ name: "NEW", value: "1", secret: false }],
      volumes: [],
      gridPriorities: { g2: 3 },
      hardware: { memoryMb: 1024 },
      placement: { region: "eu-central", zone: "eu-central-1a" },
      instances: { min: 1, max: 2 },
    });
    expect(plan.changed).toEqual({
      config: true,
      ports: true,
      compute: true,
      gridPriorities: true,
      source: false,
    });
  });

  it("a null secret value keeps the stored secret; a null without a stored secret is refused", () => {
    const plan = planUpdate(current, { config: { env: [{ name: "TOKEN", value: null, secret: true }] } });
    expect(plan.config.env).toEqual([{ name: "TOKEN", value: "secret", secret: true }]);
    expect(() =>
      planUpdate(current, { config: { env: [{ name: "MODE", value: null, secret: true }] } }),
    ).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });

  it("reports no change when the same values are sent, and removes the command on null", () => {
    expect(
      planUpdate(current, {
        config: { instances: { min: 1, max: 2 }, ports: [{ port: 80, protocol: "http" }] },
      }).changed,
    ).toEqual({
      config: false,
      ports: false,
      compute: false,
      gridPriorities: false,
      source: false,
    });
    expect(planUpdate(current, { config: { command: null } }).config.command).toBeUndefined();
  });

  it("refuses a source on an image app", () => {
    expect(() =>
      planUpdate(current, { source: { provider: "github", repository: "a/b", branch: "main" } }),
    ).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });
});
