import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthScriptPath } from "../../scripts/deploy-manifests.ts";
import { applyConditionChange, type Condition, type ConditionChange } from "../../src/api/conditions.ts";
import { kstatusOf } from "../../src/api/kstatus.ts";
import { findGo } from "../../src/control-plane/binary.ts";
import { suspended } from "../../src/controllers/skeleton/condition-changes.ts";
import { heldChange } from "../../src/controllers/skeleton/policies.ts";
import { repoRoot, run } from "./helpers.ts";

/**
 * Runs deploy/argocd/health.lua the way Argo CD does (gopher-lua, Argo CD's library set) through
 * the small Go program in hack/argocd-health.
 */
let dir = "";
let evaluator = "";

async function health(
  object: object,
  script = healthScriptPath,
): Promise<{ status: string; message: string }> {
  const { stdout } = await run(evaluator, [script], { input: JSON.stringify(object) });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-argocd-health-"));
  evaluator = path.join(dir, "argocd-health");
  await run(await findGo(), ["build", "-o", evaluator, "."], {
    cwd: path.join(repoRoot, "hack", "argocd-health"),
    env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const now = "2025-01-01T00:00:00Z";
function condition(type: string, status: string, reason: string, message: string, observedGeneration = 2) {
  return { type, status, reason, message, observedGeneration, lastTransitionTime: now };
}
function app(status?: object, spec: object = {}) {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name: "web", namespace: "team-a", generation: 2 },
    spec: { projectId: "0123456789abcdef01234567", image: "nginx", ...spec },
    ...(status === undefined ? {} : { status }),
  };
}
const ready = condition("Ready", "True", "Succeeded", "App is running at https://web.example");
const stalled = condition(
  "Stalled",
  "True",
  "MissingScopes",
  "The API key lacks apps:write (request req-1).",
);
const reconciling = condition("Reconciling", "True", "Building", "Building image (build b-1).");
const notReady = condition("Ready", "False", "Building", "Waiting for build b-1.");

describe("Argo CD health of berth resources", () => {
  it.each([
    [
      "Ready=True on the current generation",
      app({ observedGeneration: 2, conditions: [ready] }),
      "Healthy",
      ready.message,
    ],
    [
      "Ready=True with Stalled=False",
      app({ observedGeneration: 2, conditions: [ready, condition("Stalled", "False", "Succeeded", "")] }),
      "Healthy",
      ready.message,
    ],
    [
      "Ready=True with an empty message",
      app({ observedGeneration: 2, conditions: [{ ...ready, message: "" }] }),
      "Healthy",
      "Succeeded",
    ],
    [
      "Stalled=True",
      app({ observedGeneration: 2, conditions: [{ ...notReady, reason: "MissingScopes" }, stalled] }),
      "Degraded",
      stalled.message,
    ],
    [
      "Stalled=True without a message",
      app({ observedGeneration: 2, conditions: [{ ...stalled, message: "" }] }),
      "Degraded",
      "MissingScopes",
    ],
    [
      "Reconciling=True, Ready=False",
      app({ observedGeneration: 2, conditions: [notReady, reconciling] }),
      "Progressing",
      reconciling.message,
    ],
    [
      "Ready=False alone",
      app({ observedGeneration: 2, conditions: [notReady] }),
      "Progressing",
      notReady.message,
    ],
    [
      "Ready=Unknown",
      app({
        observedGeneration: 2,
        conditions: [condition("Ready", "Unknown", "Progressing", "Reconciling.")],
      }),
      "Progressing",
      "Reconciling.",
    ],
    ["no status yet", app(), "Progressing", "Waiting for berth to reconcile"],
    [
      "status without conditions",
      app({ observedGeneration: 2 }),
      "Progressing",
      "Waiting for the Ready condition",
    ],
    [
      "a new generation not yet observed, though Ready=True for the old one",
      app({ observedGeneration: 1, conditions: [{ ...ready, observedGeneration: 1 }] }),
      "Progressing",
      "Waiting for berth to observe generation 2",
    ],
    [
      "a new generation not yet observed, though Stalled=True for the old one",
      app({ observedGeneration: 1, conditions: [{ ...stalled, observedGeneration: 1 }] }),
      "Progressing",
      "Waiting for berth to observe generation 2",
    ],
    [
      "Ready=True written for an older generation",
      app({ observedGeneration: 2, conditions: [{ ...ready, observedGeneration: 1 }] }),
      "Progressing",
      ready.message,
    ],
    [
      "spec.suspend, even when Ready",
      app({ observedGeneration: 2, conditions: [ready] }, { suspend: true }),
      "Suspended",
      "Reconciliation is suspended (spec.suspend is true)",
    ],
    [
      "spec.suspend: false",
      app({ observedGeneration: 2, conditions: [ready] }, { suspend: false }),
      "Healthy",
      ready.message,
    ],
  ])("%s", async (_, object, status, message) => {
    expect(await health(object)).toEqual({ status, message });
  });

  it.each([
    ["App", "Stalled", "OutputConflict", "ConfigMap web-out exists and is not berth's", "Degraded"],
    ["App", "Stalled", "CredentialsChanged", "the key now belongs to another user", "Degraded"],
    ["App", "Reconciling", "Moving", "moving app a1 to project p2", "Progressing"],
    ["ServerOrder", "Reconciling", "WakeBlocked", "no capacity to wake 0xab…; retrying", "Progressing"],
    ["Project", "Reconciling", "DependentsExist", "waiting for 1 App(s) using the project", "Progressing"],
  ])("%s %s=True %s is %s", async (kind, type, reason, message, status) => {
    const notYet = condition("Ready", "False", reason, message);
    const object = {
      ...app({ observedGeneration: 2, conditions: [notYet, condition(type, "True", reason, message)] }),
      kind,
    };
    expect(await health(object)).toEqual({ status, message });
  });

  it("a hibernated ServerOrder that reached its desired power state is Healthy", async () => {
    const hibernated = condition(
      "Ready",
      "True",
      "Succeeded",
      "2 servers hibernated (spec.power: Hibernated)",
    );
    const object = {
      ...app({ observedGeneration: 2, conditions: [hibernated] }, { power: "Hibernated" }),
      kind: "ServerOrder",
    };
    expect(await health(object)).toEqual({ status: "Healthy", message: hibernated.message });
  });

  it("a ServerOrder waiting for approval is Suspended (a person must set spec.approved), as kstatus reads it Current", async () => {
    const message =
      "the service estimates 0.1040 USD per hour for 2 × native.small in eu-central-1a; set spec.approved: true to place the order";
    // The conditions the ServerOrder plan writes while it waits: Ready=False, no Reconciling, no Stalled.
    const awaiting = {
      ...app({
        observedGeneration: 2,
        conditions: [
          condition("Ready", "False", "AwaitingApproval", message),
          condition("Ordered", "False", "AwaitingApproval", message),
        ],
      }),
      kind: "ServerOrder",
    };
    expect(await health(awaiting)).toEqual({ status: "Suspended", message });
    expect(kstatusOf(awaiting).status).toBe("Current");
    const stale = { ...awaiting, metadata: { ...awaiting.metadata, generation: 3 } };
    expect((await health(stale)).status).toBe("Progressing");
  });

  describe("resources berth is told to leave alone: Current in kstatus (a Kustomization waiting on health goes on)", () => {
    const held = (change: ConditionChange, spec: object = {}) =>
      app(
        {
          observedGeneration: 2,
          conditions: applyConditionChange([ready as Condition], change, new Date(0)),
        },
        spec,
      );
    const update = {
      type: "update",
      change: "update",
      doing: "updating the app",
      fields: ["image"],
    } as const;
    const create = {
      type: "create",
      change: "create",
      doing: "creating the app",
      fields: undefined,
    } as const;
    const policies = (p: ("Observe" | "Create" | "Update" | "Delete")[]) => ({
      policies: p,
      deletionPolicy: "Delete" as const,
      paused: undefined,
    });
    it.each([
      ["suspended (spec.suspend)", held(suspended(2), { suspend: true }), "Suspended"],
      [
        "paused, a change held",
        held(heldChange([update], { ...policies(["Observe"]), policies: ["*"], paused: "namespace" }, 2)),
        "Suspended",
      ],
      [
        "[Observe], drift reported not reverted",
        held(heldChange([update], policies(["Observe"]), 2)),
        "Suspended",
      ],
      [
        "[Observe], the object does not exist",
        held(heldChange([create], policies(["Observe"]), 2)),
        "Missing",
      ],
    ])("%s: Argo CD %s", async (_, object, status) => {
      expect(kstatusOf(object).status).toBe("Current");
      expect((await health(object)).status).toBe(status);
    });

    it("paused with nothing held keeps Ready's status, with the reason Paused: Suspended in Argo CD", async () => {
      const idle = app({
        observedGeneration: 2,
        conditions: [condition("Ready", "True", "Paused", "paused (…): any change would be held; running")],
      });
      expect(kstatusOf(idle).status).toBe("Current");
      expect((await health(idle)).status).toBe("Suspended");
    });
  });

  it("evaluates every berth kind, not only App", async () => {
    for (const kind of ["Project", "Grid", "ServerOrder"]) {
      const object = { ...app({ observedGeneration: 2, conditions: [stalled] }), kind };
      expect((await health(object)).status, kind).toBe("Degraded");
    }
  });

  it("runs scripts in Argo CD's sandbox: the string library is absent", async () => {
    const script = path.join(dir, "uses-string.lua");
    await writeFile(script, 'return { status = string.lower("HEALTHY"), message = "" }');
    await expect(health(app(), script)).rejects.toThrow(/string/);
  });
});
