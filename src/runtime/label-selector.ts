/** A Kubernetes label selector in its text form, e.g. `berth.dev/shard in (shard1)` or `!berth.dev/shard`. */
export interface LabelSelector {
  /** The selector as given, trimmed (empty selects everything). */
  readonly text: string;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

export class LabelSelectorError extends Error {
  readonly code = "bad_label_selector";
}

type Labels = Readonly<Record<string, string>>;
type Requirement = (labels: Labels) => boolean;

const name = "[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?";
const key = `(?<key>(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?/)?${name})`;
const value = `(?:${name})?`;
const forms: [RegExp, (groups: Record<string, string>) => Requirement][] = [
  [new RegExp(`^${key}$`), (g) => (labels) => Object.hasOwn(labels, g.key ?? "")],
  [new RegExp(`^!\\s*${key}$`), (g) => (labels) => !Object.hasOwn(labels, g.key ?? "")],
  [
    new RegExp(`^${key}\\s*(?<op>==|=|!=)\\s*(?<value>${value})$`),
    ({ key: k = "", op, value: v }) =>
      op === "!=" ? (labels) => labels[k] !== v : (labels) => labels[k] === v,
  ],
  [
    new RegExp(`^${key}\\s+(?<op>in|notin)\\s*\\((?<values>\\s*${value}\\s*(?:,\\s*${value}\\s*)*)\\)$`),
    ({ key: k = "", op, values = "" }) => {
      const set = new Set(values.split(",").map((v) => v.trim()));
      return op === "notin"
        ? (labels) => !set.has(labels[k] ?? "\0")
        : (labels) => Object.hasOwn(labels, k) && set.has(labels[k] ?? "");
    },
  ],
];

/** Splits on commas outside parentheses. */
function requirementsOf(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

function requirement(text: string): Requirement {
  for (const [pattern, build] of forms) {
    const groups = pattern.exec(text)?.groups;
    if (groups !== undefined) return build(groups);
  }
  throw new LabelSelectorError(
    `"${text}" is not a label selector requirement: use key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)`,
  );
}

/** Parses a selector as kubectl and the apiserver write it; every requirement must hold. */
export function parseLabelSelector(text: string): LabelSelector {
  const trimmed = text.trim();
  const requirements = trimmed === "" ? [] : requirementsOf(trimmed).map(requirement);
  return {
    text: trimmed,
    matches: (labels) => requirements.every((holds) => holds(labels ?? {})),
  };
}
