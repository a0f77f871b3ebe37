import type { TraceNode } from "./tree.ts";

const header = ["NAME", "READY", "REASON", "AGE", "EXTERNAL-ID", "CLAIM", "INTENT", "LAST EVENT"];

/** How long ago, as kubectl writes it: 45s, 12m, 3h, 2d. */
export function age(since: string | undefined, now: number): string {
  const at = since === undefined ? Number.NaN : Date.parse(since);
  if (Number.isNaN(at)) return "-";
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function cells(node: TraceNode, prefix: string, now: number): string[] {
  const intent =
    node.intent === undefined ? "-" : `${node.intent.operation} (attempt ${node.intent.attempt})`;
  const event =
    node.lastEvent === undefined
      ? "-"
      : `${age(node.lastEvent.at, now)} ago ${node.lastEvent.reason}: ${oneLine(node.lastEvent.note, 80)}`;
  return [
    `${prefix}${node.kind}/${node.name}`,
    node.ready,
    node.reason || "-",
    age(node.createdAt, now),
    node.externalId ?? "-",
    node.claim,
    intent,
    event,
  ];
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** One line per node, drawn as a tree under a header, columns aligned (the last one free). */
export function renderTree(root: TraceNode, now: number): string {
  const rows: string[][] = [header];
  const walk = (node: TraceNode, prefix: string, childPrefix: string) => {
    rows.push(cells(node, prefix, now));
    node.children.forEach((child, index) => {
      const last = index === node.children.length - 1;
      walk(child, `${childPrefix}${last ? "└─ " : "├─ "}`, `${childPrefix}${last ? "   " : "│  "}`);
    });
  };
  walk(root, "", "");
  const widths = header.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  const table = `${rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
  return table + spendLines(root, now) + claimantLines(root);
}

/** More than one resource names the root's external object: each, and its claim. */
function claimantLines(root: TraceNode): string {
  if (root.claimants === undefined) return "";
  const lines = root.claimants.map((c) => `  ${c.kind} ${c.namespace}/${c.name}: ${c.claim}`);
  return `\n${root.claimants.length} resources name ${root.externalId ?? "the same external object"}:\n${lines.join("\n")}\n`;
}

/** A SpendLimit root: its accounts, then each resource refused or holding room and what it adds. */
function spendLines(root: TraceNode, now: number): string {
  const spend = root.spend;
  if (spend === undefined) return "";
  const unit = spend.currency === "" ? "/h" : ` ${spend.currency}/h`;
  const lines = [
    `\nlimit ${spend.limit}${unit}, used ${spend.used}, committed ${spend.committed}; ` +
      `${spend.refused.length} refused, ${spend.commitments.length} committed`,
    ...spend.refused.map(
      (r) => `  refused ${r.resource}: adds ${r.adds}${unit}, waiting ${age(r.since, now)}`,
    ),
    ...spend.commitments.map(
      (c) => `  committed ${c.resource}: ${c.hourly}${unit} (adds ${c.adds}), since ${age(c.since, now)}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
