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

  it.each(["crds"])("deploy/%s holds exactly the generated CRDs", async (folder) => {
    const expected = generated
      .filter((f) => f.path.startsWith(`${folder}/`))
      .map((f) => f.path.slice(folder.length + 1));
    expect((await readdir(deployPath(folder))).sort(), fix).toEqual(expected.sort());
  });
});
