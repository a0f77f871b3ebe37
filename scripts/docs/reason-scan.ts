/**
 * The condition reasons the code writes as string literals, found by reading src/ with the
 * TypeScript parser: a reason need not be one of the Reason constants (the SpendLimit's
 * `WithinLimit` is a literal), and the reasons page must still list it. A literal counts when it
 * reaches, directly or through `??`, `||`, `? :` or parentheses:
 *
 * - the `reason` of an object literal that also has a `message` (a condition; an event has a `note`);
 * - an argument whose parameter is `reason` in a function that also takes a `message`;
 * - a variable named `reason`, or the return of a function named for a reason (`reasonOfCode`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const srcDirectory = fileURLToPath(new URL("../../src/", import.meta.url));

const reasonLike = /^[A-Z][A-Za-z0-9]*$/;

export interface FoundReason {
  reason: string;
  /** `src/…:line`. */
  where: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [file] : [];
  });
}

/** The folders whose code writes conditions (the CLI and the simulator write none). */
const conditionWriters = ["api", "controllers", "operator", "runtime"];

/** Scans already made in this process, by root and folders: the files don't change while it runs. */
const scans = new Map<string, FoundReason[]>();

/** Every condition reason written as a literal in the operator's code under `root` (src/ by default). */
export function literalReasons(root = srcDirectory, folders = conditionWriters): FoundReason[] {
  const key = [root, ...folders].join("\0");
  let found = scans.get(key);
  if (found === undefined) {
    found = scan(root, folders);
    scans.set(key, found);
  }
  return found;
}

function scan(root: string, folders: readonly string[]): FoundReason[] {
  // A reason slot, and a function taking a `reason`, both have the word in their file.
  const files = folders
    .flatMap((folder) => sourceFiles(path.join(root, folder)))
    .map((file) => ({ file, text: readFileSync(file, "utf8") }))
    .filter(({ text }) => /\breason\b/.test(text))
    .map(({ file, text }) => ts.createSourceFile(file, text, ts.ScriptTarget.ESNext, true));
  const functions = functionIndex(files);
  const found: FoundReason[] = [];
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) && reasonLike.test(node.text) && isReasonSlot(node, file, functions)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push({
          reason: node.text,
          where: `${path.relative(path.dirname(root), file.fileName)}:${line + 1}`,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

interface Declared {
  file: ts.SourceFile;
  parameters: string[];
}

/**
 * Each function's parameter names by its name, from every file (function declarations, methods and
 * `const name = (…) =>`): a call's arguments are matched to them without a type checker, the
 * calling file's own declaration first.
 */
function functionIndex(files: readonly ts.SourceFile[]): Map<string, Declared[]> {
  const index = new Map<string, Declared[]>();
  const add = (name: string | undefined, file: ts.SourceFile, fn: ts.SignatureDeclaration) => {
    if (name === undefined) return;
    const parameters = fn.parameters.map((p) => nameOf(p.name) ?? "");
    index.set(name, [...(index.get(name) ?? []), { file, parameters }]);
  };
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (
        (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) &&
        node.name
      ) {
        add(nameOf(node.name), file, node);
      } else if (
        ts.isVariableDeclaration(node) &&
        node.initializer !== undefined &&
        (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
      ) {
        add(nameOf(node.name), file, node.initializer);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return index;
}

function calleeParameters(
  call: ts.CallExpression,
  file: ts.SourceFile,
  functions: Map<string, Declared[]>,
): string[][] {
  const callee = call.expression;
  const name = ts.isIdentifier(callee)
    ? callee.text
    : ts.isPropertyAccessExpression(callee)
      ? callee.name.text
      : undefined;
  const declared = functions.get(name ?? "") ?? [];
  const local = declared.filter((d) => d.file === file);
  return (local.length > 0 ? local : declared).map((d) => d.parameters);
}

/** The expression a literal's value reaches: up through `??`, `||`, `? :` and parentheses. */
function carrier(node: ts.Expression): ts.Expression {
  let current: ts.Expression = node;
  for (;;) {
    const parent = current.parent;
    if (
      ts.isParenthesizedExpression(parent) ||
      ts.isAsExpression(parent) ||
      ts.isSatisfiesExpression(parent)
    ) {
      current = parent;
    } else if (ts.isConditionalExpression(parent) && parent.condition !== current) {
      current = parent;
    } else if (
      ts.isBinaryExpression(parent) &&
      (parent.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        parent.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    ) {
      current = parent;
    } else return current;
  }
}

function isReasonSlot(
  literal: ts.StringLiteral,
  file: ts.SourceFile,
  functions: Map<string, Declared[]>,
): boolean {
  const value = carrier(literal);
  const slot = value.parent;
  if (ts.isPropertyAssignment(slot) && slot.initializer === value && nameOf(slot.name) === "reason") {
    return hasProperty(slot.parent, "message") && !hasProperty(slot.parent, "rule");
  }
  if (ts.isVariableDeclaration(slot) && slot.initializer === value) return nameOf(slot.name) === "reason";
  if (ts.isCallExpression(slot) && slot.arguments.includes(value)) {
    const index = slot.arguments.indexOf(value);
    return calleeParameters(slot, file, functions).some(
      (parameters) => parameters[index] === "reason" && parameters.includes("message"),
    );
  }
  if (ts.isReturnStatement(slot) || (ts.isArrowFunction(slot) && slot.body === value)) {
    return /reason/i.test(functionName(slot) ?? "");
  }
  return false;
}

function nameOf(name: ts.Node): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

function hasProperty(object: ts.Node, name: string): boolean {
  return (
    ts.isObjectLiteralExpression(object) &&
    object.properties.some((p) => p.name !== undefined && nameOf(p.name) === name)
  );
}

function functionName(node: ts.Node): string | undefined {
  for (let current: ts.Node | undefined = node; current !== undefined; current = current.parent) {
    if (ts.isFunctionDeclaration(current) || ts.isMethodDeclaration(current)) {
      return current.name === undefined ? undefined : nameOf(current.name);
    }
    if (ts.isArrowFunction(current) || ts.isFunctionExpression(current)) {
      const holder = current.parent;
      return ts.isVariableDeclaration(holder) ? nameOf(holder.name) : undefined;
    }
  }
  return undefined;
}
