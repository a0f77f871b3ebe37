import { readFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiextensionsV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { crdManifest } from "../../src/api/crd/definition.ts";
import { crdDirectory } from "../../src/api/crd/files.ts";
import type { StructuralSchema } from "../../src/api/crd/structural.ts";
import { kinds } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { kubeConfig } from "../support/kube.ts";
import { kubectl } from "./helpers.ts";

const crdNames = kinds.map((k) => `${k.names.plural}.berth.dev`);

function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** The apiserver publishes a new CRD's OpenAPI a moment after it is Established. */
async function explain(field: string, mustContain: string): Promise<string> {
  let output = "";
  for (let attempt = 0; attempt < 50; attempt++) {
    output = await kubectl("explain", field, "--api-version=berth.dev/v1alpha1").catch(() => "");
    if (flat(output).includes(mustContain)) return flat(output);
    await sleep(200);
  }
  return flat(output);
}

describe("berth CRDs on a real apiserver", () => {
  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  it("installs every CRD and each becomes Established", async () => {
    const api = kubeConfig().makeApiClient(ApiextensionsV1Api);
    for (const name of crdNames) {
      const crd = await api.readCustomResourceDefinition({ name });
      expect(crd.status?.conditions?.find((c) => c.type === "Established")?.status, name).toBe("True");
    }
  });

  it("installs idempotently: a second install changes nothing", async () => {
    const api = kubeConfig().makeApiClient(ApiextensionsV1Api);
    const versions = async () =>
      Promise.all(
        crdNames.map(
          async (name) => (await api.readCustomResourceDefinition({ name })).metadata?.resourceVersion,
        ),
      );
    const before = await versions();
    expect(await installCrds(kubeConfig())).toEqual([...crdNames].sort());
    expect(await versions()).toEqual(before);
  });

  it("stores exactly the schema, columns and names of the committed files", async () => {
    for (const name of crdNames) {
      const file = parse(await readFile(path.join(crdDirectory, `${name}.yaml`), "utf8"));
      const stored = JSON.parse(await kubectl("get", "crd", name, "-o", "json"));
      expect(stored.spec.names, name).toEqual(file.spec.names);
      expect(stored.spec.versions, name).toEqual(file.spec.versions);
    }
  });

  it.each(kinds.map((k) => [k.names.kind, k] as const))(
    "%s: kubectl explain shows the description of the spec, the status and each of their fields",
    async (_, kind) => {
      const properties = crdManifest(kind).spec.versions[0]?.schema.openAPIV3Schema.properties ?? {};
      for (const part of ["spec", "status"] as const) {
        const schema: StructuralSchema = properties[part] ?? {};
        const output = await explain(`${kind.names.plural}.${part}`, flat(schema.description ?? "?"));
        expect(output).toContain(flat(schema.description ?? "?"));
        for (const [field, child] of Object.entries(schema.properties ?? {})) {
          expect(output, `${kind.names.kind} ${part}.${field}`).toContain(`${field} <`);
          expect(output, `${kind.names.kind} ${part}.${field}`).toContain(flat(child.description ?? "?"));
        }
      }
    },
  );
});
