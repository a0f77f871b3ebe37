import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { deployDirectory, generateDeployFiles } from "../../scripts/deploy-manifests.ts";
import { deployPath } from "./helpers.ts";

const fix = "run `npm run generate` and commit the result";

describe("generated files in deploy/", () => {
  const generated = generateDeployFiles();

  it.each(generated.map((file) => [file.path, file.content]))("%s is up to date", async (file, content) => {
    const onDisk = await readFile(`${deployDirectory}${file}`, "utf8").catch(() => "(missing)");
    expect(onDisk, `deploy/${file} is out of date with its source: ${fix}`).toBe(content);
  });

  it("deploy/crds holds exactly the generated CRDs", async () => {
    const expected = generated.filter((f) => f.path.startsWith("crds/")).map((f) => f.path.slice(5));
    expect((await readdir(deployPath("crds"))).sort(), fix).toEqual(expected.sort());
  });
});
