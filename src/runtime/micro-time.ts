/**
 * Kubernetes MicroTime: RFC 3339 in UTC with exactly six fractional digits,
 * e.g. `2026-01-02T03:04:05.123456Z`. `epochMs` may carry sub-millisecond precision.
 */
export function microTime(epochMs: number): string {
  const wholeMs = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - wholeMs) * 1000));
  const iso = new Date(wholeMs).toISOString(); // 2026-01-02T03:04:05.123Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0")}Z`;
}

/** The wall clock with sub-millisecond precision. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
