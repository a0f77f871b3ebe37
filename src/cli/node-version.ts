/** The Node.js major version berth runs on (package.json `engines`). Imports nothing, so it runs on any Node. */
export const requiredNodeMajor = 24;

/** The message for a Node.js older than berth needs, or undefined when `version` (e.g. "20.20.2") will do. */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number.parseInt(version, 10);
  if (major >= requiredNodeMajor) return undefined;
  return `berth needs Node.js ${requiredNodeMajor} (this is ${version}); run it with npx berth, or install Node ${requiredNodeMajor}`;
}
