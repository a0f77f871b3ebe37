import { describe, expect, it } from "vitest";
import type { AppStatus } from "../../api/app.ts";
import { anApp, appId, projectId } from "./builders.test-support.ts";
import { appOutputs } from "./outputs.ts";

const cases: [string, AppStatus, Record<string, string>][] = [
  ["nothing known yet: no keys (no empty placeholders)", {}, {}],
  [
    "created, not wired: the IDs only",
    { appId, projectId, endpoints: [{ port: 80, protocol: "http" }] },
    { appId, projectId },
  ],
  [
    "wired: url and one address per endpoint that has one",
    {
      appId,
      projectId,
      url: "https://web.example",
      endpoints: [
        { port: 80, protocol: "http", address: "https://web.example" },
        { port: 9000, protocol: "tcp", address: "tcp://web.example:31000" },
        { port: 9100, protocol: "tcp", address: null },
        { port: 9200, protocol: "tcp" },
      ],
    },
    {
      appId,
      projectId,
      url: "https://web.example",
      "address-80": "https://web.example",
      "address-9000": "tcp://web.example:31000",
    },
  ],
];

describe("appOutputs", () => {
  it.each(cases)("%s", (_, status, expected) => {
    expect(appOutputs(anApp(), status)).toEqual(expected);
  });
});
