/** Log export: the oldest lines that fit the byte budget, so newer lines may be missing. */
export const DEFAULT_LOG_BYTES = 1024 * 1024;
export const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** Enough to exceed the largest budget, so truncation is real. */
export const KEPT_LINES = 100_000;

export interface LogExport {
  text: string;
  lines: number;
  truncated: boolean;
}

export function exportLogs(lines: readonly string[], maxBytes: number): LogExport {
  let bytes = 0;
  let count = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    count++;
  }
  const kept = lines.slice(0, count);
  return { text: kept.map((l) => `${l}\n`).join(""), lines: count, truncated: count < lines.length };
}

export function appendLog(lines: string[], at: number, source: string, message: string): void {
  lines.push(`${new Date(at).toISOString()} [${source}] ${message}`);
  // Trim in batches so appending stays cheap once the buffer is full.
  if (lines.length > KEPT_LINES * 1.1) lines.splice(0, lines.length - KEPT_LINES);
}
