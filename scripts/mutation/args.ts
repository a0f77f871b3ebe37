import { type MutationGroup, mutationGroups } from "./groups.ts";

/** `npm run mutation -- [GROUP ...] [--concurrency N]`: the groups to run and the test runners. */
export function parseMutationArgs(argv: string[]): { groups: MutationGroup[]; concurrency: number } {
  let concurrency = 2;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--concurrency") concurrency = Number(argv[++i]);
    else names.push(arg);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error("--concurrency takes a whole number of test runners, at least 1");
  const groups = names.length === 0 ? [...mutationGroups] : names.map(groupNamed);
  return { groups, concurrency };
}

function groupNamed(name: string): MutationGroup {
  const group = mutationGroups.find((g) => g.name === name);
  if (group === undefined)
    throw new Error(`no mutation group ${name}: choose from ${mutationGroups.map((g) => g.name).join(", ")}`);
  return group;
}
