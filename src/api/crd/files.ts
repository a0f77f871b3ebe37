import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { kinds } from "../index.ts";
import type { KindDefinition } from "../resource.ts";
import { type CrdManifest, crdManifest } from "./definition.ts";

/** The committed CRD files: `crds/` at the package root (the same relative place from src/ and dist/). */
export const crdDirectory = fileURLToPath(new URL("../../../crds/", import.meta.url));

export interface CrdFile {
  fileName: string;
  content: string;
}

const header = "# Generated from the zod schemas in src/api by `npm run generate`. Do not edit.\n";

export function renderCrd(manifest: CrdManifest): string {
  // YAML 1.1 quoting: kubectl reads YAML 1.1, where a bare On (spec.power) would be a boolean.
  return header + stringify(manifest, { lineWidth: 0, version: "1.1" });
}

/** The CRD file of every kind, as `npm run generate` writes them. */
export function generateCrdFiles(definitions: readonly KindDefinition[] = kinds): CrdFile[] {
  return definitions.map((definition) => {
    const manifest = crdManifest(definition);
    return { fileName: `${manifest.metadata.name}.yaml`, content: renderCrd(manifest) };
  });
}
