import { describe, expect, it } from "vitest";
import { anApp, desiredOf, serviceApp } from "./builders.test-support.ts";
import { diffApp } from "./diff.ts";

describe("diffApp", () => {
  it("is empty when the service matches the spec", () => {
    const desired = desiredOf(anApp({ command: ["run"], hardware: { cpu: 1 } }));
    expect(diffApp(desired, serviceApp(desired), new Map())).toEqual({
      patch: {},
      fields: [],
    });
  });

  it("ignores fields the service adds to its records (no PATCH loop on unknown fields)", () => {
    const desired = desiredOf(
      anApp({
        ports: [{ port: 80, protocol: "http" }],
        volumes: [{ name: "data", mountPath: "/data", sizeGb: 5 }],
        env: [{ name: "A", value: "1" }],
      }),
    );
    const service = serviceApp(desired);
    const extra = { revision: 7, tags: [] };
    const marked = {
      ...service,
      ...extra,
      config: {
        ...service.config,
        ...extra,
        ports: service.config.ports.map((p) => ({ ...p, ...extra })),
        volumes: service.config.volumes.map((v) => ({ ...v, ...extra })),
        env: service.config.env.map((e) => ({ ...e, ...extra })),
      },
    };
    expect(diffApp(desired, marked, new Map()).fields).toEqual([]);
  });

  it("merges hardware and placement by key: changed keys set, dropped keys null", () => {
    const desired = desiredOf(anApp({ hardware: { cpu: 2 }, placement: { region: "eu" } }));
    const service = serviceApp(desired, { hardware: { cpu: 1, gpu: 1 }, placement: { region: "eu" } });
    expect(diffApp(desired, service, new Map())).toEqual({
      patch: { config: { hardware: { cpu: 2, gpu: null } } },
      fields: ["hardware"],
    });
  });

  it("replaces volumes and grid priorities whole, removes a dropped command with null", () => {
    const desired = desiredOf(anApp({ volumes: [{ name: "data", mountPath: "/data", sizeGb: 5 }] }));
    const service = serviceApp(desired, {
      volumes: [],
      gridPriorities: { "11111111-1111-1111-1111-111111111111": 1 },
      command: ["old"],
    });
    const diff = diffApp(desired, service, new Map());
    expect(diff.patch).toEqual({
      config: {
        volumes: [{ name: "data", mountPath: "/data", sizeGb: 5 }],
        gridPriorities: {},
        command: null,
      },
    });
    expect(diff.fields).toEqual(["volumes", "gridPriorities", "command"]);
  });

  it("renames and changes the image without touching the rest", () => {
    const desired = desiredOf(anApp({ displayName: "web-2", image: "nginx:1.28" }));
    const service = serviceApp(desiredOf(anApp()));
    expect(diffApp(desired, service, new Map())).toEqual({
      patch: { name: "web-2", config: { image: "nginx:1.28" } },
      fields: ["name", "image"],
    });
  });
});
