import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { StructuralSchema } from "../../src/api/crd/structural.ts";
import { apiReferencePath, fields, renderApiReference, typeOf, validation } from "./api-reference.ts";
import { table } from "./markdown.ts";
import {
  checkEntries,
  definedReasons,
  readReasonsSource,
  reasonsPagePath,
  renderReasonsPage,
} from "./troubleshooting.ts";

const fix = "run `npm run generate` and commit the result";

describe("the committed generated docs", () => {
  it("docs/reference/api.md matches the zod schemas", async () => {
    expect(await readFile(apiReferencePath, "utf8"), `docs/reference/api.md is out of date: ${fix}`).toBe(
      renderApiReference(),
    );
  });

  // The first to scan the code for literal reasons (reason-scan.ts): seconds on a busy machine.
  it("docs/troubleshooting/reasons.md matches the code's reasons and reasons.yaml", {
    timeout: 30_000,
  }, async () => {
    expect(
      await readFile(reasonsPagePath, "utf8"),
      `docs/troubleshooting/reasons.md is out of date: ${fix}`,
    ).toBe(renderReasonsPage());
  });
});

describe("the reasons page", () => {
  const source = readReasonsSource();

  it("has an entry for every reason and start-up error the code defines", () => {
    const defined = definedReasons();
    expect(defined.reasons).toContain("IntentUnsettled");
    expect(defined.reasons).toContain("DuplicateGrids");
    expect(defined.reasons).toContain("ServerFailed");
    expect(defined.operatorStartup).toContain("crds_outdated");
    expect(defined.operatorStartup).toContain("invalid_operator_config");
    expect(defined.controlPlaneStartup).toContain("go_missing");
    expect(() => checkEntries(defined, source)).not.toThrow();
  });

  it("fails generation for a reason the code defines without an entry", () => {
    const defined = definedReasons();
    const withNew = { ...defined, reasons: [...defined.reasons, "SomethingNew"] };
    expect(() => renderReasonsPage(withNew, source)).toThrow(/condition reason SomethingNew has no entry/);
  });

  it("fails generation for a start-up error without an entry", () => {
    const defined = definedReasons();
    const withNew = { ...defined, operatorStartup: [...defined.operatorStartup, "disk_full"] };
    expect(() => renderReasonsPage(withNew, source)).toThrow(/start-up error disk_full has no entry/);
  });

  it("fails generation for an entry the code no longer defines", () => {
    const defined = definedReasons();
    const without = { ...defined, reasons: defined.reasons.filter((r) => r !== "OutputConflict") };
    expect(() => renderReasonsPage(without, source)).toThrow(
      /OutputConflict is documented but the code no longer/,
    );
  });

  it("answers what Stalled IntentUnsettled asks of a person, under its own heading", () => {
    const page = renderReasonsPage();
    const entry = page.slice(page.indexOf("### IntentUnsettled"));
    expect(entry).toMatch(/^### IntentUnsettled\n\n\*\*Condition:\*\* `Stalled`/);
    expect(entry).toContain("**What to do:** Look at the service");
  });
});

describe("the API reference", () => {
  const schema: StructuralSchema = {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string", description: "The name.", minLength: 1, maxLength: 8, pattern: "^[a-z|]+$" },
      mode: { type: "string", enum: ["A", "B"], default: "A" },
      tags: {
        type: "array",
        maxItems: 3,
        items: { type: "string", maxLength: 5 },
        "x-kubernetes-list-type": "set",
      },
      ports: {
        type: "array",
        items: {
          type: "object",
          properties: { port: { type: "integer", minimum: 1, maximum: 65535 } },
          "x-kubernetes-validations": [{ rule: "self.port > 0", message: "port must be positive" }],
        },
      },
    },
  };

  it("lists every field, array items included, with whether it is required", () => {
    const list = fields(schema, "spec").map((f) => `${f.path}${f.required ? "*" : ""}`);
    expect(list).toEqual([
      "spec.name*",
      "spec.mode",
      "spec.tags",
      "spec.ports",
      "spec.ports[]",
      "spec.ports[].port",
    ]);
  });

  it("says each rule the apiserver checks, with the CEL messages", () => {
    const props = schema.properties ?? {};
    expect(validation(props.name ?? {})).toEqual(["length ≥ 1, ≤ 8", "matches `^[a-z|]+$`"]);
    expect(validation(props.mode ?? {})).toEqual(['one of `"A"`, `"B"`']);
    expect(validation(props.tags ?? {})).toEqual(["items ≤ 3", "each item: length ≤ 5", "unique items"]);
    expect(validation(props.ports?.items ?? {})).toEqual(["`self.port > 0`: port must be positive"]);
    expect(typeOf(props.ports ?? {})).toBe("[]object");
  });

  it("fails on a schema keyword it does not show", () => {
    const odd = { type: "object", properties: { x: { type: "string", "x-kubernetes-int-or-string": true } } };
    expect(() => fields(odd as StructuralSchema, "spec")).toThrow(/x-kubernetes-int-or-string is not shown/);
  });

  it("escapes pipes in table cells", () => {
    expect(table(["a"], [["x | y"]])).toBe("| a |\n| --- |\n| x \\| y |");
  });

  it("covers every spec field of every kind, e.g. App's env rule and ServerOrder's power enum", () => {
    const page = renderApiReference();
    expect(page).toContain("each env entry must set exactly one of value or valueFrom");
    expect(page).toMatch(/\| `spec\.power` \| `string` \| +\| `"On"` \| one of `"On"`, `"Hibernated"`/);
  });
});
