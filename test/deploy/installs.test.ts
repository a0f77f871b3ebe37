import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { applyForReal, kubectl, type Manifest, renderInNamespace } from "./helpers.ts";

const clusterScoped = new Set(["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace"]);

/** `kubectl auth can-i`'s answer, "yes" or "no" (it exits 1 on "no"). */
async function canI(verb: string, resource: string, user: string): Promise<string> {
  try {
    return (await kubectl(["auth", "can-i", verb, resource, `--as=${user}`])).stdout.trim();
  } catch (error) {
    const answer = /\bno\b/.exec(String(error));
    if (answer !== null) return "no";
    throw error;
  }
}

describe("two namespaced installs (deploy/overlays/namespaced, named per install)", () => {
  const teams = [`team-a-${randomBytes(3).toString("hex")}`, `team-b-${randomBytes(3).toString("hex")}`];
  const applied: Manifest[] = [];

  afterAll(async () => {
    for (const object of applied.filter((o) => clusterScoped.has(o.kind))) {
      await kubectl(["delete", object.kind, object.metadata.name, "--ignore-not-found"]);
    }
  });

  it("coexist: every cluster-scoped object is each install's own, and both keep their metrics auth", async () => {
    const installs = await Promise.all(
      teams.map((team) => renderInNamespace("overlays/namespaced", team, true)),
    );
    for (const team of teams) await kubectl(["create", "namespace", team]);
    for (const objects of installs) {
      applied.push(...objects);
      await applyForReal(objects.map((o) => stringify(o)).join("---\n"));
    }
    const names = installs.map((objects) =>
      objects.filter((o) => clusterScoped.has(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`),
    );
    expect(names[0]?.length).toBeGreaterThan(0);
    expect(names[0]?.filter((name) => names[1]?.includes(name))).toEqual([]);
    for (const [i, team] of teams.entries()) {
      for (const name of names[i] ?? []) expect(name).toMatch(new RegExp(`-${team}$`));
      const operator = `system:serviceaccount:${team}:berth-operator`;
      expect(await canI("create", "tokenreviews.authentication.k8s.io", operator), team).toBe("yes");
      expect(await canI("create", "subjectaccessreviews.authorization.k8s.io", operator), team).toBe("yes");
      expect(await canI("get", "customresourcedefinitions/apps.berth.dev", operator), team).toBe("yes");
    }
  });
});
