import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { installCrds } from "../../src/api/install.ts";
import { kubectl } from "../deploy/helpers.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { blocksOf, commandsOf, docPages, repoRoot } from "./blocks.ts";
import { checkCommand } from "./commands.ts";

const blocks = docPages().flatMap((page) => blocksOf(page));
const shellLanguages = new Set(["sh", "bash", "shell", "console"]);
const yamlBlocks = blocks.filter((b) => b.language === "yaml" && b.notRun === undefined);
const shellBlocks = blocks.filter((b) => shellLanguages.has(b.language) && b.notRun === undefined);
const where = (b: { file: string; line: number }) => `${b.file}:${b.line}`;

describe("the docs' code blocks", () => {
  it("each carry a language, so the examples can be found", () => {
    expect(blocks.filter((b) => b.language === "").map(where)).toEqual([]);
  });

  it("are found: the README's and the guides' YAML and shell blocks among them", () => {
    expect(yamlBlocks.map((b) => b.file)).toEqual(
      expect.arrayContaining(["README.md", "docs/concepts/kinds.md", "docs/guides/adopt.md"]),
    );
    expect(shellBlocks.map((b) => b.file)).toEqual(
      expect.arrayContaining(["README.md", "docs/getting-started.md", "docs/guides/sharding.md"]),
    );
  });

  it("say why when one is not run", () => {
    const marked = blocks.filter((b) => b.notRun !== undefined);
    for (const block of marked) expect(block.notRun?.length, where(block)).toBeGreaterThan(10);
  });
});

describe("the README's first screen", () => {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");

  it("fits two screens and shows the two commands after cloning on the first", () => {
    const lines = readme.split("\n");
    expect(lines.length).toBeLessThanOrEqual(200);
    const firstScreen = lines.slice(0, 50).join("\n");
    expect(firstScreen).toContain("npm ci && npm run dev");
    expect(firstScreen).toMatch(/^npm test\b/m);
  });
});

describe("every YAML example applies to the apiserver (server-side dry run)", () => {
  const namespace = useNamespace("docs");

  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  it.each(yamlBlocks.map((b) => [where(b), b.body] as const))("%s", async (_where, body) => {
    const documents = parseAllDocuments(body).map((d) => d.toJS() as { kind?: string } | null);
    expect(documents.every((d) => typeof d?.kind === "string")).toBe(true);
    const { stdout } = await kubectl(
      [
        "apply",
        "--server-side",
        "--dry-run=server",
        "--field-manager=berth-docs-test",
        "-n",
        namespace.name,
        "-f",
        "-",
      ],
      body,
    );
    expect(stdout.trim().split("\n")).toHaveLength(documents.length);
  });
});

describe("every shell command the docs show checks out", () => {
  beforeAll(async () => {
    await installCrds(kubeConfig());
  });

  it.each(shellBlocks.map((b) => [where(b), b.body] as const))("%s", async (_where, body) => {
    const commands = commandsOf(body);
    expect(commands.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const command of commands) {
      for (const problem of await checkCommand(command)) problems.push(`${command.text}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });
});
