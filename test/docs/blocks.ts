/** The code blocks of the Markdown docs, and the commands in their shell blocks. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The pages whose examples must work: the README, docs/ and deploy/README.md. */
export function docPages(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? docs(path.join(dir, entry.name))
        : entry.name.endsWith(".md")
          ? [path.join(dir, entry.name)]
          : [],
    );
  return ["README.md", "deploy/README.md", ...docs("docs")].sort();
}

export interface Block {
  /** Repository-relative page and the fence's line (1-based). */
  file: string;
  line: number;
  /** The fence's language, "" when it has none. */
  language: string;
  body: string;
  /** The reason an `<!-- not run: reason -->` comment right before the fence gives, if any. */
  notRun: string | undefined;
}

const fence = /^(\s*)(`{3,})\s*([\w-]*)/;
const notRunComment = /^<!--\s*not run:\s*(.+?)\s*-->$/;

export function blocksOf(file: string, text = readFileSync(path.join(repoRoot, file), "utf8")): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, indent = "", ticks = "```", language = ""] = open;
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? "").trim().startsWith(ticks)) end++;
    const body = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join("\n");
    let before = i - 1;
    while (before >= 0 && (lines[before] ?? "").trim() === "") before--;
    const comment = notRunComment.exec((lines[before] ?? "").trim());
    blocks.push({ file, line: i + 1, language, body, notRun: comment?.[1] });
    i = end;
  }
  return blocks;
}

export interface Command {
  /** The words, quotes removed; a `$(…)` substitution is the word `$(…)`. */
  words: string[];
  text: string;
}

/**
 * The simple commands of a shell block: continuation lines joined, comments dropped, split at
 * `&&`, `||`, `|`, `;` and `&`, leading `VAR=value` assignments left out, and each `$(…)` a command
 * of its own. Enough for the commands the docs show, not a shell.
 */
export function commandsOf(script: string): Command[] {
  const logical = script.replace(/\\\n\s*/g, " ").split("\n");
  return logical.flatMap((line) => splitLine(line));
}

function splitLine(line: string): Command[] {
  const commands: Command[] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let text = "";
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    const start = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (start !== -1) commands.push({ words: words.slice(start), text: text.trim() });
    words = [];
    text = "";
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (c === "$" && line[i + 1] === "(") {
      const close = matching(line, i + 1);
      commands.push(...splitLine(line.slice(i + 2, close)));
      word += "$(…)";
      inWord = true;
      text += line.slice(i, close + 1);
      i = close;
      continue;
    }
    text += c;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      const end = close === -1 ? line.length : close;
      const quoted = line.slice(i + 1, end);
      if (c === '"' && quoted.includes("$(")) {
        for (const inner of quoted.matchAll(/\$\(([^)]*)\)/g)) commands.push(...splitLine(inner[1] ?? ""));
      }
      word += c === '"' ? quoted.replace(/\$\([^)]*\)/g, "$(…)") : quoted;
      inWord = true;
      text += line.slice(i + 1, end + 1);
      i = end;
    } else if (c === "#" && !inWord) {
      break;
    } else if (c === " " || c === "\t") {
      endWord();
    } else if (c === "|" || c === ";" || c === "&") {
      if (line[i + 1] === c) i++;
      text = text.slice(0, -1);
      endCommand();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

function matching(line: string, open: number): number {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    if (line[i] === "(") depth++;
    if (line[i] === ")" && --depth === 0) return i;
  }
  return line.length;
}
