/** Time as the client sees it; injected so tests use fake timers and benchmarks a sped-up clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `callback` after `ms`; returns a function that cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

export function createSystemClock(): Clock {
  return {
    now: () => Date.now(),
    setTimer(ms, callback) {
      const timer = setTimeout(callback, Math.max(0, ms));
      return () => clearTimeout(timer);
    },
  };
}

/** Resolves after `ms` on `clock`; rejects with the signal's reason if it is aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
