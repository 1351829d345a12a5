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

/**
 * The longest delay one `setTimeout` takes (2^31 - 1 ms, about 24.8 days):
 * Node and browsers run a timer given more after about 1 ms instead.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real clock: `Date.now()` and `setTimeout` (works in browsers and
 * Node). A sleep longer than {@link MAX_TIMER_MS} (a server's far
 * `Retry-After`, say) is waited in steps, never cut short; `Infinity`
 * sleeps until `signal` aborts.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const wait = (left: number) => {
        const step = Math.min(left, MAX_TIMER_MS);
        timer = setTimeout(() => {
          if (left > step) return wait(left - step);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, step);
      };
      wait(Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
