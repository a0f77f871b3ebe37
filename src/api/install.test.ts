import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { crdDirectory } from "./crd/files.ts";
import { ApiError } from "./errors.ts";
import { loadCrdFiles } from "./install.ts";

describe("loadCrdFiles", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("loads the committed CRDs with their CEL rules intact in the client's model", async () => {
    const crds = await loadCrdFiles(crdDirectory);
    expect(crds.map((crd) => crd.metadata?.name)).toEqual([
      "apps.berth.dev",
      "grids.berth.dev",
      "projects.berth.dev",
      "serverorders.berth.dev",
      "spendlimits.berth.dev",
    ]);
    const app = crds[0]?.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    expect(app?.x_kubernetes_validations?.[0]?.message).toBe(
      "exactly one of spec.image or spec.source must be set",
    );
  });

  it("refuses a file that is not a CRD, naming the file", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "berth-crds-"));
    await writeFile(path.join(dir, "oops.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    const error = await loadCrdFiles(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "invalid_crd_file" });
    expect(String(error)).toContain(path.join(dir, "oops.yaml"));
  });

  it("refuses an empty or missing directory, saying how to fix it", async () => {
    const error = await loadCrdFiles("/nonexistent/crds").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid_crd_file" });
    expect(String(error)).toContain("npm run generate");
  });
});
