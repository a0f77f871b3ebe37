/** How many lines of the failed step's log berth shows. */
export const tailLines = 20;
const maxLineLength = 200;
/** status.build.logTail's maxLength in the CRD. */
const maxTailLength = 4096;
const masked = "****";

/** What berth learned of one failed build's log. */
export interface BuildLog {
  buildId: string;
  /** The failed step's last lines, secrets masked. */
  tail?: string | undefined;
  /** Why the log can't be shown (a missing scope, a failed read). */
  unreadable?: string | undefined;
  /** A failed read is tried again from then on (ms); undefined: never again for this build. */
  retryAt?: number | undefined;
  attempts?: number | undefined;
}

/**
 * The last lines of the failed step: the lines that name the step (`[step]`, as the service tags
 * them), or every line when none does, each line and the whole bounded, and every secret value
 * berth sent masked (the service masks them; this holds even if it did not).
 */
export function failedStepTail(
  text: string,
  failedStep: string | undefined,
  secrets: readonly string[],
): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const ofStep = failedStep === undefined ? [] : lines.filter((line) => line.includes(`[${failedStep}]`));
  const chosen = (ofStep.length > 0 ? ofStep : lines).slice(-tailLines);
  const tail = chosen.map((line) => clip(mask(line, secrets))).join("\n");
  return tail.length <= maxTailLength ? tail : tail.slice(tail.length - maxTailLength);
}

function mask(line: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is masked whole.
  const values = [...secrets].filter((value) => value.length >= 3).sort((a, b) => b.length - a.length);
  return values.reduce((text, value) => text.split(value).join(masked), line);
}

function clip(line: string): string {
  return line.length <= maxLineLength ? line : `${line.slice(0, maxLineLength - 1)}…`;
}

/** Whether the failed build's log is still to be read: not yet learned, or a failed read is due again. */
export function buildLogDue(buildId: string, known: BuildLog | undefined, now: number): boolean {
  if (known === undefined || known.buildId !== buildId) return true;
  return known.retryAt !== undefined && known.retryAt <= now;
}

/** After a failed read: again with a doubling wait, at most five times. */
export function afterFailedRead(
  buildId: string,
  previous: BuildLog | undefined,
  reason: string,
  now: number,
  waitMs: number,
): BuildLog {
  const attempts = (previous?.buildId === buildId ? (previous.attempts ?? 0) : 0) + 1;
  return {
    buildId,
    unreadable: reason,
    attempts,
    retryAt: attempts >= 5 ? undefined : now + waitMs * 2 ** (attempts - 1),
  };
}

/** The Warning event's note: the tail's end first kept, as event notes hold 1 kB. */
export function buildLogNote(buildId: string, tail: string): string {
  const room = 1000 - buildId.length - 60;
  const kept = tail.length <= room ? tail : `…${tail.slice(tail.length - room)}`;
  return `build ${buildId} failed; the failed step's last lines:\n${kept}`;
}
