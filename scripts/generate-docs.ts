/** Writes the generated docs: the API reference and the reasons page (`npm run generate`). */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { apiReferencePath, renderApiReference } from "./docs/api-reference.ts";
import { reasonsPagePath, renderReasonsPage } from "./docs/troubleshooting.ts";

for (const [file, content] of [
  [apiReferencePath, renderApiReference()],
  [reasonsPagePath, renderReasonsPage()],
] as const) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
