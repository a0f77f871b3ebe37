/**
 * Checks a shell command the docs show without running it: berth subcommands and flags against the
 * CLI's own parser, npm scripts against package.json, kubectl subcommands and flags against
 * kubectl's help and resource names against the test apiserver, helm values against the chart's
 * values.yaml, and every path into the repository against the files.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { parseMutationArgs } from "../../scripts/mutation/args.ts";
import { kinds } from "../../src/api/index.ts";
import { parseConfig } from "../../src/cli/command.ts";
import { findCommand } from "../../src/cli/run.ts";
import { kubectl, run } from "../deploy/helpers.ts";
import { type Command, repoRoot } from "./blocks.ts";

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** Programs the docs may show that have nothing of berth's to check but their paths. */
const plainPrograms = new Set(["curl", "grep", "date", "git", "docker", "kustomize", "echo"]);

/** Problems with one command; empty when it checks out. */
export async function checkCommand(command: Command): Promise<string[]> {
  const words = withoutRedirections(command.words);
  const [program, ...args] = words;
  // kubectl's `deploy/name` is a resource, not a path: only its files (-f, -k) are paths.
  const paths =
    program === "kubectl"
      ? args.filter((_, i) => /^(-f|-k|--filename|--kustomize)$/.test(args[i - 1] ?? ""))
      : words;
  const problems = paths.flatMap(checkPath);
  switch (program) {
    case undefined:
      return problems;
    case "npm":
      return [...problems, ...(await checkNpm(args))];
    case "node":
      return problems; // its script's path is checked above
    case "berth":
      return [...problems, ...(await checkBerth(args))];
    case "kubectl":
      return [
        ...problems,
        ...(args[0] === "berth" ? await checkBerth(args.slice(1)) : await checkKubectl(args)),
      ];
    case "helm":
      return [...problems, ...checkHelm(args)];
    default:
      return plainPrograms.has(program) ? problems : [...problems, `no check for the program ${program}`];
  }
}

function withoutRedirections(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    if (/^\d?>>?$/.test(word)) i++;
    else if (!/^\d?>&\d$/.test(word)) out.push(word);
  }
  return out;
}

const repoFolders = /^(deploy|crds|docs|scripts|hack|src|test)(\/|$)/;

function checkPath(word: string): string[] {
  if (!repoFolders.test(word) || word.includes("…") || word.includes("<")) return [];
  return existsSync(path.join(repoRoot, word)) ? [] : [`${word} does not exist in the repository`];
}

async function checkNpm(args: string[]): Promise<string[]> {
  const [sub, ...rest] = args;
  if (sub === "ci" || sub === "test" || sub === "install" || sub === "pack") return [];
  if (sub === "exec") return rest[0] === "--" ? [] : ["npm exec without --"];
  if (sub !== "run") return [`npm ${sub ?? ""} is not checked`];
  const [script, dashes, ...scriptArgs] = rest;
  if (script === undefined || !Object.hasOwn(packageJson.scripts, script)) {
    return [`package.json has no script ${script ?? "(none)"}`];
  }
  if (script === "berth" && dashes === "--") return checkBerth(scriptArgs);
  if (script === "mutation" && dashes === "--") return checkArgs(() => parseMutationArgs(scriptArgs));
  return dashes === undefined ? [] : [`npm run ${script} passes arguments without checking them`];
}

function checkArgs(parse: () => unknown): string[] {
  try {
    parse();
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

const berthKinds = new Set(
  kinds.flatMap((k) => [k.names.kind.toLowerCase(), k.names.singular, k.names.plural, ...k.names.shortNames]),
);

async function checkBerth(args: string[]): Promise<string[]> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "--version") return [];
  const command = await findCommand(name);
  if (command === undefined) return [`berth has no command ${name}`];
  if (rest.includes("--help")) return [];
  try {
    parseConfig(command, rest, {});
  } catch (error) {
    return [`berth ${name}: ${error instanceof Error ? error.message : String(error)}`];
  }
  if (name === "trace") {
    const target = rest.find((arg, i) => !arg.startsWith("-") && !(rest[i - 1] ?? "").startsWith("-"));
    const kind = target?.split("/")[0] ?? "";
    if (!berthKinds.has(kind)) return [`berth trace: ${kind} is not a berth kind`];
  }
  return [];
}

function checkHelm(args: string[]): string[] {
  const problems: string[] = [];
  const [sub] = args;
  if (!["install", "upgrade", "get", "lint", "template", "uninstall"].includes(sub ?? "")) {
    problems.push(`helm ${sub ?? ""} is not checked`);
  }
  const values: unknown = parse(readFileSync(path.join(repoRoot, "deploy/helm/berth/values.yaml"), "utf8"));
  args.forEach((arg, i) => {
    if (args[i - 1] !== "--set" && args[i - 1] !== "--set-string") return;
    const key = arg.split("=")[0] ?? "";
    let node: unknown = values;
    for (const part of key.split(".")) {
      node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    if (node === undefined) problems.push(`the chart has no value ${key}`);
  });
  return problems;
}

interface KubectlFlag {
  name: string;
  short: string | undefined;
  takesValue: boolean;
}

const helpCache = new Map<string, Promise<KubectlFlag[]>>();

/** The flags `kubectl <path> --help` lists (or `kubectl options`, the global ones). */
function kubectlFlags(subcommand: readonly string[]): Promise<KubectlFlag[]> {
  const key = subcommand.join(" ");
  let flags = helpCache.get(key);
  if (flags === undefined) {
    flags = run("kubectl", subcommand.length === 0 ? ["options"] : [...subcommand, "--help"]).then(
      ({ stdout }) =>
        [...stdout.matchAll(/^\s+(?:-(\w), )?--([\w-]+)=(\S*?):/gm)].map((m) => ({
          short: m[1],
          name: m[2] ?? "",
          takesValue: m[3] !== "true" && m[3] !== "false",
        })),
    );
    helpCache.set(key, flags);
  }
  return flags;
}

/** Subcommands that take another word before their arguments. */
const nestedSubcommands: Record<string, number> = { create: 1, rollout: 1, auth: 1, config: 1, set: 1 };

/** Where the resource type is among a subcommand's positional arguments (none: not checked). */
const resourcePosition: Record<string, number> = {
  get: 0,
  describe: 0,
  wait: 0,
  patch: 0,
  annotate: 0,
  label: 0,
  delete: 0,
  edit: 0,
  "rollout status": 0,
  "port-forward": 0,
  "auth can-i": 1,
};

async function checkKubectl(args: string[]): Promise<string[]> {
  const globals = await kubectlFlags([]);
  const positionals: string[] = [];
  const flagWords: string[] = [];
  const subcommand: string[] = [];
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("-")) {
      flagWords.push(arg);
      const known = findFlag(
        [...globals, ...(subcommand.length > 0 ? await kubectlFlags(subcommand) : [])],
        arg,
      );
      if (known?.takesValue && !arg.includes("=")) i++;
      continue;
    }
    if (subcommand.length === 0 || (depth > 0 && subcommand.length <= depth)) {
      subcommand.push(arg);
      if (subcommand.length === 1) depth = nestedSubcommands[arg] ?? 0;
      if (subcommand[0] === "create" && subcommand[1] === "secret" && subcommand.length === 2) depth = 2;
      continue;
    }
    positionals.push(arg);
  }
  if (subcommand.length === 0) return ["kubectl without a subcommand"];
  let flags: KubectlFlag[];
  try {
    flags = [...globals, ...(await kubectlFlags(subcommand))];
  } catch {
    return [`kubectl ${subcommand.join(" ")} is not a kubectl command`];
  }
  const problems = flagWords
    .filter((word) => findFlag(flags, word) === undefined)
    .map((word) => `kubectl ${subcommand.join(" ")} has no flag ${word.split("=")[0]}`);
  const position = resourcePosition[subcommand.join(" ")];
  const resource = position === undefined ? undefined : positionals[position];
  if (resource !== undefined) {
    for (const type of (resource.split("/")[0] ?? "").split(",")) {
      if (!(await isResourceType(type)))
        problems.push(`kubectl: ${type} is not a resource type the apiserver serves`);
    }
  }
  return problems;
}

function findFlag(flags: readonly KubectlFlag[], word: string): KubectlFlag | undefined {
  const long = /^--([\w-]+)/.exec(word)?.[1];
  if (long !== undefined) return flags.find((f) => f.name === long);
  const short = /^-(\w)/.exec(word)?.[1];
  return flags.find((f) => f.short === short);
}

const typeCache = new Map<string, Promise<boolean>>();
const categories = new Set(kinds.map(() => "berth"));

/** Whether kubectl resolves the type against the test apiserver, as it would for `get`. */
function isResourceType(type: string): Promise<boolean> {
  if (categories.has(type)) return Promise.resolve(true);
  let known = typeCache.get(type);
  if (known === undefined) {
    known = kubectl(["explain", type]).then(
      () => true,
      () => false,
    );
    typeCache.set(type, known);
  }
  return known;
}
