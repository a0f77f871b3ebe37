import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { kinds } from "../index.ts";
import { crdRevision } from "../meta.ts";
import { crdManifest } from "./definition.ts";

/** A digest of every generated CRD's spec: what an installed CRD must match for the operator to work. */
function schemaDigest(): string {
  const specs = kinds.map((kind) => crdManifest(kind).spec);
  return createHash("sha256").update(JSON.stringify(specs)).digest("hex").slice(0, 16);
}

describe("CRD revision", () => {
  // When this fails you changed a CRD schema: raise crdRevision in src/api/meta.ts (operators of this
  // version then refuse older CRDs instead of losing the fields the apiserver would prune), record the
  // new digest here, and run `npm run generate`.
  it("names the schemas it was raised for", () => {
    expect({ revision: crdRevision, digest: schemaDigest() }).toEqual({
      revision: 4,
      digest: "fbc80ae0b258e785",
    });
  });
});
