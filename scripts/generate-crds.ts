/** Writes crds/<plural>.berth.dev.yaml from the zod schemas in src/api: `npm run generate`. */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { crdDirectory, generateCrdFiles } from "../src/api/crd/files.ts";

const files = generateCrdFiles();
await mkdir(crdDirectory, { recursive: true });
for (const file of files) {
  await writeFile(path.join(crdDirectory, file.fileName), file.content);
  process.stdout.write(`wrote crds/${file.fileName}\n`);
}
// A kind that was removed or renamed must not leave its old CRD behind.
const current = new Set(files.map((file) => file.fileName));
for (const name of await readdir(crdDirectory)) {
  if (name.endsWith(".berth.dev.yaml") && !current.has(name)) {
    await rm(path.join(crdDirectory, name));
    process.stdout.write(`removed stale crds/${name}\n`);
  }
}
