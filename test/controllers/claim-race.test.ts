import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { App } from "../../src/api/app.ts";
import { appType } from "../../src/controllers/app/kind.ts";
import { ClaimWaiters, heldClaim } from "../../src/controllers/service/claims.ts";
import { checkClaim } from "../../src/controllers/skeleton/claim.ts";
import { asKubeObject, KubeClient, type KubeObject } from "../../src/runtime/index.ts";
import { berthObjects } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { useOperatorEnvironment } from "./support.ts";

/**
 * Two claimants whose claims cross within one apiserver round trip end with exactly one holder.
 * Each claimant is its own shard (neither cache sees the other) and their clocks disagree: the
 * one that writes second believes it claimed 5 s earlier, so a claim decided by recorded times
 * alone would let both hold. Raced many times against the real apiserver.
 */
describe("claims racing", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const rounds = 40;

  it(`two claimants racing for one app, ${rounds} times: exactly one holds each time`, {
    timeout: 180_000,
  }, async () => {
    await env.setUp();
    const kube = new KubeClient(kubeConfig());
    const locks = { kube, namespace: env.namespace };
    const claimant = (skewMs: number) => ({
      kube,
      now: () => Date.now() + skewMs,
      informer: () => ({ list: (): KubeObject[] => [] }),
      claims: { namespaces: [env.namespace], waiters: new ClaimWaiters(), locks },
    });
    const projectId = randomBytes(12).toString("hex");
    const outcomes: number[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        const appId = randomBytes(12).toString("hex");
        const names = [`a-${round}`, `b-${round}`];
        const made = await Promise.all(
          names.map(async (name) =>
            asKubeObject(await objects.create("apps", name, { projectId, appId, image: "nginx:1.27" })),
          ),
        );
        // The second claimant's clock runs 5 s behind, and it may start a little later.
        const checks = made.map(async (object, i) => {
          if (i === 1 && round % 2 === 0) await new Promise((resolve) => setImmediate(resolve));
          const resource = object as unknown as App;
          return checkClaim({
            deps: claimant(i === 0 ? 0 : -5000),
            type: appType,
            field: "appId",
            object,
            resource,
          });
        });
        const held = (await Promise.all(checks)).filter((c) => c.held).length;
        // What the apiserver records: one resource holds the claim.
        const stored = await Promise.all(names.map((name) => objects.get("apps", name)));
        const recorded = stored.filter(
          (o) => o !== undefined && heldClaim(asKubeObject(o), appId) !== undefined,
        );
        outcomes.push(held * 10 + recorded.length);
      }
    } finally {
      await kube.close();
    }
    // 11: one claimant held, and one resource records the claim.
    expect(outcomes.filter((o) => o !== 11)).toEqual([]);
  });
});
