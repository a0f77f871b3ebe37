import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const srcDir = dirname(fileURLToPath(import.meta.url));

/** Every .ts file under src/, tests included (a test importing a test-support file is an edge too). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The relative modules a file imports: `import`, `import type`, `export ... from` and a literal
 * `import("...")`. Type-only imports count: a type shared by two modules belongs in a third both
 * depend on, or the two can't be read (or moved) apart.
 */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) specifiers.push(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
}

type ImportGraph = ReadonlyMap<string, readonly string[]>;

function importGraph(dir: string): ImportGraph {
  const files = sourceFiles(dir);
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
}

/** One import circle per strongly connected component (Tarjan), each as a path that closes on itself. */
function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || selfLoop) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components.map((component) => cycleWithin(graph, new Set(component)));
}

/** The shortest circle through the component's first file (breadth first, inside the component). */
function cycleWithin(graph: ImportGraph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0] ?? "";
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() ?? start;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] ?? start) ?? start);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

const name = (file: string): string => relative(srcDir, file);

describe("src/ import graph", () => {
  const graph = importGraph(srcDir);

  it("has no import circle (type-only imports included)", () => {
    const circles = importCycles(graph).map((cycle) => cycle.map(name).join(" → "));
    expect(circles).toEqual([]);
  });

  it("keeps hosting/ free of Kubernetes code and of telemetry/", () => {
    const offending = [...graph].flatMap(([file, targets]) =>
      name(file).startsWith("hosting/")
        ? targets.map(name).filter((target) => /^(telemetry|runtime|controllers|operator|api)\//.test(target))
        : [],
    );
    expect(offending).toEqual([]);
  });

  /** The files under `from` that import a file outside what `allowed` matches. */
  const importsBeyond = (from: string, allowed: RegExp): string[] =>
    [...graph].flatMap(([file, targets]) =>
      name(file).startsWith(from)
        ? targets.filter((target) => !allowed.test(name(target))).map((t) => `${name(file)} → ${name(t)}`)
        : [],
    );

  it("keeps controllers/service/ (reaching the service) below the skeleton: it never imports skeleton/ or a kind", () => {
    expect(
      importsBeyond("controllers/service/", /^(controllers\/service|api|hosting|runtime|telemetry)\//),
    ).toEqual([]);
  });

  it("keeps controllers/skeleton/ free of any one kind", () => {
    expect(
      importsBeyond(
        "controllers/skeleton/",
        /^(?!controllers\/(app|project|grid|server-order|billing|credentials)\/)/,
      ),
    ).toEqual([]);
  });
});

describe("importCycles", () => {
  it("names a circle of three and ignores a chain", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(importCycles(graph)).toEqual([["a", "b", "c", "a"]]);
  });

  it("finds a file that imports itself", () => {
    expect(importCycles(new Map([["a", ["a"]]]))).toEqual([["a", "a"]]);
  });

  it("finds nothing in a tree", () => {
    expect(
      importCycles(
        new Map([
          ["a", ["b", "c"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toEqual([]);
  });
});
