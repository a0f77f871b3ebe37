import { beforeAll, describe, expect, it } from "vitest";
import { installCrds } from "../../src/api/install.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { create, kubectl } from "./helpers.ts";

/** What `kubectl get` shows of berth resources: references to select by, and the -o wide columns. */
describe("kubectl get on berth resources", () => {
  const namespace = useNamespace("sel");
  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  const app = (name: string, project: string) => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name },
    spec: { projectRef: { name: project }, image: `nginx:1.2${name.length}`, instances: { min: 1, max: 3 } },
  });

  it("selects Apps by the Project they reference (--field-selector spec.projectRef.name=…)", async () => {
    await create(namespace.name, app("web", "demo"));
    await create(namespace.name, app("api", "demo"));
    await create(namespace.name, app("other", "elsewhere"));
    const names = await kubectl(
      "get",
      "bapp",
      "-n",
      namespace.name,
      "--field-selector",
      "spec.projectRef.name=demo",
      "-o",
      "name",
    );
    expect(names.trim().split("\n").sort()).toEqual(["app.berth.dev/api", "app.berth.dev/web"]);
  });

  it("shows an App's project, image and instances with -o wide, and not without", async () => {
    await create(namespace.name, app("web", "demo"));
    const wide = await kubectl("get", "bapp", "web", "-n", namespace.name, "-o", "wide");
    const [header = "", row = ""] = wide.trim().split("\n");
    expect(header.split(/\s+/)).toEqual(expect.arrayContaining(["PROJECT", "IMAGE", "MIN", "MAX"]));
    expect(row).toMatch(/\bdemo\s+nginx:1\.23\s+1\s+3\b/);
    expect(await kubectl("get", "bapp", "web", "-n", namespace.name)).not.toContain("PROJECT");
  });

  it("shows a ServerOrder's count, power and hourly estimate with -o wide", async () => {
    await create(namespace.name, {
      apiVersion: "berth.dev/v1alpha1",
      kind: "ServerOrder",
      metadata: { name: "batch" },
      spec: {
        csp: "native",
        region: "eu-central",
        zone: "eu-central-1a",
        instanceType: "native.small",
        count: 2,
      },
    });
    const wide = await kubectl("get", "border", "batch", "-n", namespace.name, "-o", "wide");
    expect(wide.split("\n")[0]?.split(/\s+/)).toEqual(
      expect.arrayContaining(["COUNT", "POWER", "HOURLY", "CURRENCY"]),
    );
  });
});
