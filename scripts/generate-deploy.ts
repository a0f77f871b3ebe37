/** Writes the generated parts of deploy/ (see deploy-manifests.ts): `npm run generate`. */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { deployDirectory, generateDeployFiles } from "./deploy-manifests.ts";

const files = generateDeployFiles();
for (const file of files) {
  const target = path.join(deployDirectory, file.path);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, file.content);
  process.stdout.write(`wrote deploy/${file.path}\n`);
}
// A kind that was removed or renamed must not leave its old CRD copy behind.
const current = new Set(files.map((file) => file.path));
await rm(path.join(deployDirectory, "helm/berth/crds"), { recursive: true, force: true });
for (const folder of ["crds"]) {
  for (const name of await readdir(path.join(deployDirectory, folder))) {
    if (!current.has(`${folder}/${name}`)) {
      await rm(path.join(deployDirectory, folder, name));
      process.stdout.write(`removed stale deploy/${folder}/${name}\n`);
    }
  }
}
