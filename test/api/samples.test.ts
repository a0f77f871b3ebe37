import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { installCrds } from "../../src/api/install.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { kubectl } from "./helpers.ts";

const samplesDir = fileURLToPath(new URL("../../deploy/samples", import.meta.url));

async function sampleFiles(): Promise<string[]> {
  const kustomization = parse(await readFile(path.join(samplesDir, "kustomization.yaml"), "utf8"));
  return kustomization.resources;
}

describe("deploy/samples", () => {
  const namespace = useNamespace("samples");

  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  it("applies file by file with kubectl apply", async () => {
    const files = await sampleFiles();
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const output = await kubectl("apply", "-n", namespace.name, "-f", path.join(samplesDir, file));
      expect(output, file).toMatch(/ created\n$/);
    }
  });

  it("applies as one kustomization, and kubectl get berth lists all four kinds", async () => {
    await kubectl("apply", "-n", namespace.name, "-k", samplesDir);
    const names = (await kubectl("get", "berth", "-n", namespace.name, "-o", "name"))
      .trim()
      .split("\n")
      .sort();
    expect(names).toEqual([
      "app.berth.dev/hello",
      "app.berth.dev/web",
      "grid.berth.dev/dedicated",
      "project.berth.dev/demo",
      "serverorder.berth.dev/two-servers",
    ]);
    const table = await kubectl("get", "berth", "-n", namespace.name);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+STATE\s+ENDPOINT\s+COST\/H\s+EXTERNAL-ID\s+AGE/);
    expect(table).toMatch(/NAME\s+READY\s+REASON\s+EXTERNAL-ID\s+AGE/);
  });

  it("refer to each other: Apps use the sample Project, secrets come from the sample Secret", async () => {
    await kubectl("apply", "-n", namespace.name, "-k", samplesDir);
    const get = (resource: string, jsonPath: string) =>
      kubectl("get", resource, "-n", namespace.name, "-o", `jsonpath=${jsonPath}`);
    const project = await get("projects.berth.dev", "{.items[*].metadata.name}");
    expect(await get("apps.berth.dev", "{.items[*].spec.projectRef.name}")).toBe(`${project} ${project}`);
    const secretRef = await get(
      "apps.berth.dev/web",
      "{.spec.env[?(@.name=='DATABASE_URL')].valueFrom.secretKeyRef}",
    );
    const { name, key } = JSON.parse(secretRef) as { name: string; key: string };
    expect(await get(`secret/${name}`, `{.data.${key}}`)).not.toBe("");
    const grid = await get("grids.berth.dev", "{.items[*].metadata.name}");
    expect(await get("serverorders.berth.dev/two-servers", "{.spec.gridRefs[*].name}")).toBe(grid);
    // A dry run: the sample never spends money.
    expect(await get("serverorders.berth.dev/two-servers", "{.spec.approved}")).toBe("false");
    // The consumer reads the ConfigMap the App publishes its outputs to.
    expect(
      await get(
        "deployment/hello-client",
        "{.spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name}",
      ),
    ).toBe(await get("apps.berth.dev/hello", "{.spec.outputs.configMapName}"));
    // The default protocol applies where the sample leaves it out.
    expect(await get("apps.berth.dev/web", "{.spec.ports[0].protocol}")).toBe("http80_load_balancer");
  });
});
