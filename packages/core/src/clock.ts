/**
 * Time as Taskwire's waiting logic sees it (client polling, retries and
 * stream resumption; push delivery retries): `now()` in milliseconds and an
 * abortable `sleep`. Every delay goes through a `Clock`, so tests pass a
 * stepped clock and never sleep for real.
 */
export interface Clock {
  /** The current time in milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds; rejects with `signal.reason` as soon as
   * `signal` aborts (at once when it already has).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: `Date.now()` and `setTimeout` (works in browsers and Node). */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
