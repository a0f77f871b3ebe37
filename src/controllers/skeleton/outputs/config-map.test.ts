import { describe, expect, it } from "vitest";
import {
  type ConfigMap,
  type DesiredOutputs,
  type OutputOwner,
  type OutputWrite,
  outputsDigest,
  ownerReference,
  planOutputWrite,
} from "./config-map.ts";

const owner: OutputOwner = {
  apiVersion: "berth.dev/v1alpha1",
  kind: "App",
  name: "web",
  namespace: "team",
  uid: "uid-web",
};
const ours = ownerReference(owner);
const desired: DesiredOutputs = { name: "web-outputs", data: { url: "https://web.example" }, ready: true };
const managed = { "app.kubernetes.io/managed-by": "berth" };

function configMap(extra: Partial<ConfigMap["metadata"]>, data?: Record<string, string>): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "web-outputs", namespace: "team", uid: "cm-uid", resourceVersion: "7", ...extra },
    ...(data === undefined ? {} : { data }),
  };
}

const written = configMap(
  {
    labels: { ...managed, "berth.dev/ready": "true" },
    annotations: { "berth.dev/ready": "true" },
    ownerReferences: [ours],
  },
  { url: "https://web.example" },
);

const cases: {
  name: string;
  existing: ConfigMap | undefined;
  desired?: DesiredOutputs;
  deleting?: boolean;
  expected: OutputWrite["type"];
  check?: (write: OutputWrite) => void;
}[] = [
  {
    name: "absent: created with the data, ready marks and a controller ownerReference",
    existing: undefined,
    expected: "create",
    check: (write) =>
      expect(write).toMatchObject({
        configMap: {
          metadata: {
            name: "web-outputs",
            namespace: "team",
            labels: { ...managed, "berth.dev/ready": "true" },
            annotations: { "berth.dev/ready": "true" },
            ownerReferences: [{ uid: "uid-web", kind: "App", controller: true, blockOwnerDeletion: true }],
          },
          data: { url: "https://web.example" },
        },
      }),
  },
  {
    name: "absent and not ready: no ready label nor annotation",
    existing: undefined,
    desired: { ...desired, ready: false },
    expected: "create",
    check: (write) => {
      const metadata = write.type === "create" ? write.configMap.metadata : undefined;
      expect(metadata?.labels).toEqual(managed);
      expect(metadata?.annotations).toBeUndefined();
    },
  },
  {
    name: "absent while the resource is deleted: nothing",
    existing: undefined,
    deleting: true,
    expected: "none",
  },
  { name: "owned and equal: unchanged", existing: written, expected: "unchanged" },
  {
    name: "someone else's ConfigMap (no ownerReference): conflict",
    existing: configMap({}, { url: "mine" }),
    expected: "conflict",
    check: (write) =>
      expect(write).toMatchObject({
        problem: {
          stalled: true,
          reason: "OutputConflict",
          message: expect.stringContaining("ConfigMap web-outputs already exists"),
        },
      }),
  },
  {
    name: "owned by another resource (another uid): conflict",
    existing: configMap({ ownerReferences: [{ ...ours, uid: "uid-other" }] }, desired.data),
    expected: "conflict",
  },
  {
    name: "foreign, even while deleting: conflict, never touched",
    existing: configMap({}),
    deleting: true,
    expected: "conflict",
  },
  {
    name: "owned, resource no longer Ready: ready marks removed, other labels kept",
    existing: configMap(
      {
        labels: { ...managed, "berth.dev/ready": "true", team: "a" },
        annotations: { "berth.dev/ready": "true", note: "kept" },
        ownerReferences: [ours],
      },
      desired.data,
    ),
    desired: { ...desired, ready: false },
    expected: "update",
    check: (write) =>
      expect(write).toMatchObject({
        configMap: {
          metadata: {
            labels: { ...managed, team: "a" },
            annotations: { note: "kept" },
            resourceVersion: "7",
          },
        },
      }),
  },
  {
    name: "owned, data changed: replaced whole (a key no longer known is removed)",
    existing: configMap({ ...written.metadata }, { url: "https://old", "address-80": "https://old" }),
    expected: "update",
    check: (write) => expect(write.type === "update" && write.configMap.data).toEqual(desired.data),
  },
  {
    name: "owned, data edited by hand: written back",
    existing: configMap({ ...written.metadata }, { url: "https://tampered" }),
    expected: "update",
  },
  {
    name: "owned, nothing known yet and no data stored: unchanged (the apiserver drops empty data)",
    existing: configMap({ labels: managed, ownerReferences: [ours] }),
    desired: { name: "web-outputs", data: {}, ready: false },
    expected: "unchanged",
  },
];

describe("planOutputWrite", () => {
  it.each(cases)("$name", ({ existing, desired: wanted, deleting, expected, check }) => {
    const write = planOutputWrite({
      existing,
      desired: wanted ?? desired,
      owner,
      deleting: deleting ?? false,
    });
    expect(write.type).toBe(expected);
    check?.(write);
  });

  it("an update keeps other owners and fields it does not manage", () => {
    const other = { apiVersion: "v1", kind: "Service", name: "s", uid: "u2" };
    const existing = {
      ...configMap({ ...written.metadata, ownerReferences: [other, ours] }),
      immutable: false,
    };
    const write = planOutputWrite({ existing, desired, owner, deleting: false });
    expect(write).toMatchObject({
      type: "update",
      configMap: { immutable: false, metadata: { ownerReferences: [other, ours] } },
    });
  });
});

describe("outputsDigest", () => {
  it.each([
    ["the data", { ...desired, data: { url: "https://other" } }, owner],
    ["readiness", { ...desired, ready: false }, owner],
    ["the ConfigMap's name", { ...desired, name: "other" }, owner],
    ["the owner (a new resource under the same name)", desired, { ...owner, uid: "uid-new" }],
  ])("changes with %s", (_, changed, changedOwner) => {
    expect(outputsDigest(changed, changedOwner)).not.toBe(outputsDigest(desired, owner));
  });

  it("does not depend on key order", () => {
    const a = { ...desired, data: { a: "1", b: "2" } };
    const b = { ...desired, data: { b: "2", a: "1" } };
    expect(outputsDigest(a, owner)).toBe(outputsDigest(b, owner));
  });
});
