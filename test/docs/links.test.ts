import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchor } from "../../scripts/docs/markdown.ts";
import { docPages, repoRoot } from "./blocks.ts";

/** The anchors a page's headings give, as GitHub makes them. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^\s*```[\s\S]*?^\s*```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1] ?? "")));
}

/** Relative links outside code: `[text](target)`. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "").filter((t) => !/^[a-z]+:/.test(t));
}

describe("links between the docs", () => {
  it.each(docPages())("%s: every relative link and anchor resolves", (page) => {
    const from = path.join(repoRoot, page);
    const broken = linksOf(readFileSync(from, "utf8")).filter((link) => {
      const [target = "", hash] = link.split("#");
      const file = target === "" ? from : path.resolve(path.dirname(from), target);
      if (!existsSync(file)) return true;
      if (hash === undefined || statSync(file).isDirectory()) return false;
      return !anchorsOf(file).has(hash);
    });
    expect(broken).toEqual([]);
  });

  it("take a reader from the README to adopting an app and to IntentUnsettled", () => {
    const readme = linksOf(readFileSync(path.join(repoRoot, "README.md"), "utf8"));
    expect(readme).toContain("docs/guides/adopt.md");
    expect(readme).toContain("docs/troubleshooting/reasons.md");
    expect(anchorsOf(path.join(repoRoot, "docs/troubleshooting/reasons.md")).has("intentunsettled")).toBe(
      true,
    );
  });
});
