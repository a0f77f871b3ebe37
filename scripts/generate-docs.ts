/**
 * Writes the generated docs (`npm run generate`): the API reference, the reasons page, and the
 * generated sections of hand-written pages (the RBAC, metrics and alerts tables).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { apiReferencePath, renderApiReference } from "./docs/api-reference.ts";
import { renderSectionPage, sectionPages } from "./docs/generated-sections.ts";
import { reasonsPagePath, renderReasonsPage } from "./docs/troubleshooting.ts";

for (const [file, content] of [
  [apiReferencePath, renderApiReference()],
  [reasonsPagePath, renderReasonsPage()],
  ...sectionPages.map(({ path, sections }) => [path, renderSectionPage(path, sections)] as const),
] as const) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
