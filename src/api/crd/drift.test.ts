import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { crdDirectory, generateCrdFiles } from "./files.ts";

const fix = "the CRDs in crds/ are out of date with src/api: run `npm run generate` and commit the result";

describe("committed CRDs", () => {
  it("match what the zod schemas generate", async () => {
    const generated = generateCrdFiles();
    const committed = (await readdir(crdDirectory)).filter((name) => name.endsWith(".yaml")).sort();
    expect(committed, fix).toEqual(generated.map((file) => file.fileName).sort());
    for (const file of generated) {
      const onDisk = await readFile(path.join(crdDirectory, file.fileName), "utf8");
      expect(onDisk, `${file.fileName}: ${fix}`).toBe(file.content);
    }
  });
});
