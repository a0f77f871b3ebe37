/**
 * Resolves after `ms`, or early (without throwing) when `signal` aborts. Uses the global timer
 * functions so that tests can drive it with fake timers.
 */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A random integer in [min, max]. */
export function randomBetween(min: number, max: number, random: () => number = Math.random): number {
  return Math.floor(min + random() * (max - min + 1));
}
