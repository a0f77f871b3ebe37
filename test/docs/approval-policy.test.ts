import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { installCrds } from "../../src/api/install.ts";
import { kubectl } from "../deploy/helpers.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { blocksOf } from "./blocks.ts";

/**
 * docs/guides/multi-team.md's ValidatingAdmissionPolicy does what the page says on a real
 * apiserver: only the GitOps controller approves a ServerOrder or orders more on an approved one.
 * The binding is narrowed to the test's namespace, so the other tests sharing the control plane
 * are not held by it.
 */
const page = "docs/guides/multi-team.md";
const gitops = "system:serviceaccount:flux-system:kustomize-controller";

interface PolicyDocument {
  kind: string;
  metadata: { name: string };
  spec: { policyName?: string; matchResources?: unknown };
}

function policyFromPage(namespace: string): string {
  const block = blocksOf(page).find(
    (b) => b.language === "yaml" && b.body.includes("ValidatingAdmissionPolicy"),
  );
  if (block === undefined) throw new Error(`${page} shows no ValidatingAdmissionPolicy`);
  const documents = parseAllDocuments(block.body).map((d) => d.toJS() as PolicyDocument);
  return documents
    .map((document) => {
      document.metadata.name = `${document.metadata.name}-${namespace}`;
      if (document.kind === "ValidatingAdmissionPolicyBinding") {
        document.spec.policyName = `${document.spec.policyName}-${namespace}`;
        document.spec.matchResources = {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
        };
      }
      return stringify(document);
    })
    .join("---\n");
}

function serverOrder(name: string, approved: boolean, count: number, maxHourlyCost: string): string {
  return stringify({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name },
    spec: {
      gridRefs: [{ name: "pool" }],
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count,
      approved,
      maxHourlyCost,
    },
  });
}

describe("the ServerOrder approval policy of the multi-team guide", () => {
  const namespace = useNamespace("approval");
  let applied = "";

  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  afterEach(async () => {
    if (applied !== "") await kubectl(["delete", "--ignore-not-found", "-f", "-"], applied);
  });

  it("lets only the GitOps controller approve, or raise the count of an approved order", async () => {
    const ns = namespace.name;
    const apply = (yaml: string, as?: string) =>
      kubectl(["apply", "-n", ns, ...(as === undefined ? [] : [`--as=${as}`]), "-f", "-"], yaml).then(
        () => "applied",
        (error: Error) => error.message,
      );
    // The controller's service account may write ServerOrders in the namespace.
    await kubectl([
      "create",
      "role",
      "gitops",
      "-n",
      ns,
      "--verb=get,list,watch,create,update,patch",
      "--resource=serverorders.berth.dev",
    ]);
    await kubectl([
      "create",
      "rolebinding",
      "gitops",
      "-n",
      ns,
      "--role=gitops",
      "--serviceaccount=flux-system:kustomize-controller",
    ]);
    applied = policyFromPage(ns);
    await kubectl(["apply", "-f", "-"], applied);
    // The policy takes effect when the apiserver has loaded it: until a person's approval is refused.
    let refusal = "applied";
    for (let i = 0; i < 100 && refusal === "applied"; i++) {
      refusal = await apply(serverOrder(`probe-${i}`, true, 1, "1.00"));
    }
    expect(refusal).toContain(
      "approve a ServerOrder, or raise its count or maxHourlyCost, through a pull request",
    );

    expect(await apply(serverOrder("batch", false, 2, "1.50"))).toBe("applied");
    expect(await apply(serverOrder("batch", true, 2, "1.50"))).toContain("through a pull request");
    expect(await apply(serverOrder("batch", true, 2, "1.50"), gitops)).toBe("applied");
    expect(await apply(serverOrder("batch", true, 3, "1.50"))).toContain("through a pull request");
    expect(await apply(serverOrder("batch", true, 2, "2.50"))).toContain("through a pull request");
    expect(await apply(serverOrder("batch", true, 1, "1.50"))).toBe("applied");
    expect(await apply(serverOrder("batch", true, 3, "1.50"), gitops)).toBe("applied");
    // The operator's own writes change no spec: a finalizer or annotation on an approved order passes.
    await kubectl(["annotate", "-n", ns, "serverorders.berth.dev/batch", "example.com/note=x"]);
  });
});
