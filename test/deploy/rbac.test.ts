import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { AuthorizationV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { operatorNamespace, serviceAccount } from "../../scripts/deploy-manifests.ts";
import { permissions } from "../../src/operator/permissions.ts";
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

interface Attributes {
  group: string;
  resource: string;
  verb: string;
  /** Empty for cluster-scoped resources. */
  namespace: string;
  name?: string;
}

async function allowed(attributes: Attributes): Promise<boolean> {
  const [resource = "", subresource] = attributes.resource.split("/");
  const review = await kubeConfig()
    .makeApiClient(AuthorizationV1Api)
    .createSubjectAccessReview({
      body: { spec: { user, groups, resourceAttributes: { ...attributes, resource, subresource } } },
    });
  return review.status?.allowed ?? false;
}

/** What the table grants: a rule of the right scope covering the verb, and the name if it names any. */
function grants({ group, resource, verb, namespace, name }: Attributes): boolean {
  return permissions.some(
    (p) =>
      p.apiGroups.includes(group) &&
      p.resources.includes(resource) &&
      p.verbs.includes(verb) &&
      (p.scope !== "operator-namespace" || namespace === operatorNamespace) &&
      (p.resourceNames === undefined || (name !== undefined && p.resourceNames.includes(name))),
  );
}

/** Every (group, resource) the table mentions, with where to probe it. */
const cells = [
  ...new Map(
    permissions.flatMap((permission) =>
      permission.apiGroups.flatMap((group) =>
        permission.resources.map((resource) => [
          `${group || "core"} ${resource}`,
          {
            group,
            resource,
            namespaces: permission.scope === "cluster" ? [""] : [operatorNamespace, teamNamespace],
            names: [undefined, "someone-else", ...(permission.resourceNames ?? [])],
          },
        ]),
      ),
    ),
  ),
];

describe("the operator's RBAC on a real apiserver", () => {
  beforeAll(async () => {
    const { objects } = await render("base");
    await applyForReal(JSON.stringify(findObject(objects, "Namespace")));
    await applyForReal(await readFile(deployPath("base", "rbac.yaml"), "utf8"));
    // The RBAC authorizer reads roles from a cache: wait until the new bindings are visible.
    const probe = { group: "berth.dev", resource: "apps", verb: "get", namespace: teamNamespace };
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await allowed(probe)) return;
      await sleep(100);
    }
    throw new Error("the operator's ClusterRole never took effect");
  });

  it.each(cells)(
    "%s: exactly the verbs, namespaces and names in src/operator/permissions.ts",
    async (_, { group, resource, namespaces, names }) => {
      for (const namespace of namespaces) {
        for (const name of names) {
          for (const verb of allVerbs) {
            const attributes = { group, resource, verb, namespace, ...(name === undefined ? {} : { name }) };
            expect(await allowed(attributes), `${verb} ${resource} ${name ?? ""} in ${namespace}`).toBe(
              grants(attributes),
            );
          }
        }
      }
    },
  );

  it("grants nothing outside the table", async () => {
    const outside = [
      { group: "", resource: "services" },
      { group: "", resource: "pods" },
      { group: "", resource: "events" },
      // Namespaces are in the table now (get, list, watch: their pause and defaults), checked above.
      { group: "", resource: "serviceaccounts" },
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

describe("the aggregated user roles on a real apiserver", () => {
  const review = async (user: string, resource: string, verb: string) => {
    const [name = "", subresource] = resource.split("/");
    const answer = await kubeConfig()
      .makeApiClient(AuthorizationV1Api)
      .createSubjectAccessReview({
        body: {
          spec: {
            user,
            resourceAttributes: {
              group: "berth.dev",
              resource: name,
              subresource,
              verb,
              namespace: teamNamespace,
            },
          },
        },
      });
    return answer.status?.allowed ?? false;
  };
  const bind = (user: string, role: string) =>
    JSON.stringify({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `${user}-${role}`, namespace: teamNamespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }],
    });

  beforeAll(async () => {
    await applyForReal(
      JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: teamNamespace } }),
    );
    await applyForReal(await readFile(deployPath("base", "rbac.yaml"), "utf8"));
    await applyForReal(bind("team-editor", "berth-edit"));
    await applyForReal(bind("team-viewer", "berth-view"));
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await review("team-viewer", "spendlimits", "get")) return;
      await sleep(100);
    }
    throw new Error("the user roles never took effect");
  });

  it("berth-edit writes every kind but SpendLimit, so a team can't raise its own limit; berth-view reads it", async () => {
    expect(await review("team-editor", "serverorders", "create")).toBe(true);
    for (const verb of ["create", "update", "patch", "delete", "deletecollection"]) {
      expect(await review("team-editor", "spendlimits", verb), verb).toBe(false);
      expect(await review("team-editor", "spendlimits/status", verb), `status ${verb}`).toBe(false);
    }
    expect(await review("team-editor", "spendlimits", "get")).toBe(false);
    expect(await review("team-viewer", "spendlimits", "get")).toBe(true);
    expect(await review("team-viewer", "spendlimits", "update")).toBe(false);
  });
});
