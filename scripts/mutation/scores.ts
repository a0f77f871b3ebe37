import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import type { MutationGroup } from "./groups.ts";

export const scoresPath = "docs/mutation/scores.json";

const fileScoreSchema = z.object({
  /** sha256 of the file's content when it was mutated. */
  sha256: z.string(),
  killed: z.number(),
  timeout: z.number(),
  survived: z.number(),
  noCoverage: z.number(),
  /** Disabled in the source as equivalent (a `Stryker disable` comment says why). */
  ignored: z.number(),
  /** Killed or timed out, of those that were not ignored or errors (Stryker's mutation score), in %. */
  score: z.number(),
});

const groupScoreSchema = z.object({
  group: z.string(),
  recordedAt: z.string(),
  /** How long the run took (wall seconds), on the machine it was recorded on. */
  seconds: z.number(),
  total: z.number(),
  files: z.record(z.string(), fileScoreSchema),
  /** Each mutant left alive: file:line:column mutator → replacement. */
  survivors: z.array(z.string()),
});

export type FileScore = z.infer<typeof fileScoreSchema>;
export type GroupScore = z.infer<typeof groupScoreSchema>;

/** What Stryker reports of one mutant (the fields the score needs). */
export interface MutantOutcome {
  fileName: string;
  status?: string | undefined;
  mutatorName: string;
  replacement: string;
  location: { start: { line: number; column: number } };
}

export async function sha256Of(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

/** Stryker's mutation score: killed and timed out over every mutant that ran or was never reached. */
export function mutationScore(s: Omit<FileScore, "sha256" | "score">): number {
  const valid = s.killed + s.timeout + s.survived + s.noCoverage;
  return valid === 0 ? 100 : Math.round((1000 * (s.killed + s.timeout)) / valid) / 10;
}

/** Each file's counts and score, the group's total, and the survivors, from Stryker's results. */
export async function scoreGroup(
  group: MutationGroup,
  results: readonly MutantOutcome[],
  seconds: number,
): Promise<GroupScore> {
  const files: Record<string, FileScore> = {};
  const all = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, ignored: 0 };
  for (const file of group.mutate) {
    const mine = results.filter((r) => relative(r.fileName) === file);
    const count = (status: string) => mine.filter((r) => r.status === status).length;
    const counts = {
      killed: count("Killed"),
      timeout: count("Timeout"),
      survived: count("Survived"),
      noCoverage: count("NoCoverage"),
      ignored: count("Ignored"),
    };
    for (const key of Object.keys(all) as (keyof typeof all)[]) all[key] += counts[key];
    files[file] = { sha256: await sha256Of(file), ...counts, score: mutationScore(counts) };
  }
  const survivors = results
    .filter((r) => r.status === "Survived" || r.status === "NoCoverage")
    .map(
      (r) =>
        `${relative(r.fileName)}:${r.location.start.line}:${r.location.start.column} ${r.mutatorName} → ${r.replacement.replace(/\s+/g, " ").slice(0, 80)}`,
    )
    .sort();
  return {
    group: group.name,
    recordedAt: new Date().toISOString(),
    seconds,
    total: mutationScore(all),
    files,
    survivors,
  };
}

function relative(fileName: string): string {
  const cwd = `${process.cwd()}/`;
  return fileName.startsWith(cwd) ? fileName.slice(cwd.length) : fileName;
}

export async function readScores(): Promise<Record<string, GroupScore>> {
  const text = await readFile(scoresPath, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "{}";
    throw error;
  });
  return z.record(z.string(), groupScoreSchema).parse(JSON.parse(text));
}

export async function writeScores(scores: Record<string, GroupScore>): Promise<void> {
  await writeFile(scoresPath, `${JSON.stringify(scores, null, 2)}\n`);
}
