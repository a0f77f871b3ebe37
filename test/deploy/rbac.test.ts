import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { AuthorizationV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { operatorNamespace, serviceAccount } from "../../scripts/deploy-manifests.ts";
import { type Permission, permissions } from "../../src/operator/permissions.ts";
import { kubeConfig } from "../support/kube.ts";
import { applyForReal, deployPath, findObject, render } from "./helpers.ts";

const user = `system:serviceaccount:${operatorNamespace}:${serviceAccount}`;
const groups = [
  "system:serviceaccounts",
  `system:serviceaccounts:${operatorNamespace}`,
  "system:authenticated",
];
const allVerbs = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
/** Any namespace but the operator's: cluster-wide rules reach it, the leader-election Role must not. */
const teamNamespace = "team-a";

async function allowed(attributes: {
  group: string;
  resource: string;
  verb: string;
  namespace: string;
}): Promise<boolean> {
  const [resource = "", subresource] = attributes.resource.split("/");
  const review = await kubeConfig()
    .makeApiClient(AuthorizationV1Api)
    .createSubjectAccessReview({
      body: { spec: { user, groups, resourceAttributes: { ...attributes, resource, subresource } } },
    });
  return review.status?.allowed ?? false;
}

function grants(permission: Permission | undefined, verb: string, namespace: string): boolean {
  if (permission === undefined || !permission.verbs.includes(verb)) return false;
  return permission.scope === "cluster" || namespace === operatorNamespace;
}

/** Every (group, resource) the table mentions, with the rule that covers it. */
const cells = permissions.flatMap((permission) =>
  permission.apiGroups.flatMap((group) =>
    permission.resources.map((resource) => ({ group, resource, permission })),
  ),
);

describe("the operator's RBAC on a real apiserver", () => {
  beforeAll(async () => {
    const { objects } = await render("base");
    await applyForReal(JSON.stringify(findObject(objects, "Namespace")));
    await applyForReal(await readFile(deployPath("base", "rbac.yaml"), "utf8"));
    // The RBAC authorizer reads roles from a cache: wait until the new bindings are visible.
    const first = cells[0];
    if (first === undefined) throw new Error("the permissions table is empty");
    for (let attempt = 0; attempt < 100; attempt++) {
      const probe = { group: first.group, resource: first.resource, namespace: teamNamespace };
      if (await allowed({ ...probe, verb: first.permission.verbs[0] ?? "get" })) return;
      await sleep(100);
    }
    throw new Error("the operator's ClusterRole never took effect");
  });

  it.each(cells.map((cell) => [`${cell.group || "core"} ${cell.resource}`, cell]))(
    "%s: exactly the verbs in src/operator/permissions.ts, in the right namespaces",
    async (_, { group, resource, permission }) => {
      for (const namespace of [operatorNamespace, teamNamespace]) {
        for (const verb of allVerbs) {
          const expected = grants(permission, verb, namespace);
          expect(
            await allowed({ group, resource, verb, namespace }),
            `${verb} ${resource} in ${namespace}`,
          ).toBe(expected);
        }
      }
    },
  );

  it("grants nothing outside the table", async () => {
    const outside = [
      { group: "", resource: "configmaps" },
      { group: "", resource: "pods" },
      { group: "", resource: "events" },
      { group: "", resource: "namespaces" },
      { group: "apps", resource: "deployments" },
      { group: "apiextensions.k8s.io", resource: "customresourcedefinitions" },
      { group: "rbac.authorization.k8s.io", resource: "clusterroles" },
    ];
    for (const { group, resource } of outside) {
      for (const verb of allVerbs) {
        expect(
          await allowed({ group, resource, verb, namespace: teamNamespace }),
          `${verb} ${resource}`,
        ).toBe(false);
      }
    }
  });
});
