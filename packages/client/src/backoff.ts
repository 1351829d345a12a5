import type { Random } from './clock.js';

/**
 * Exponential backoff with full jitter: before attempt `n` (0-based) the
 * caller waits a random time in `[0, min(maxDelayMs, initialMs * factor^n))`.
 * `maxTotalMs` bounds the whole wait (polling gives up after it).
 */
export interface BackoffOptions {
  /** The cap of the first delay, in ms. */
  readonly initialMs: number;
  /** How much the cap grows per attempt (2 doubles it). */
  readonly factor: number;
  /** The largest cap, in ms. */
  readonly maxDelayMs: number;
  /** The longest the whole wait may take, in ms (`Infinity` for no limit). */
  readonly maxTotalMs: number;
}

/**
 * The defaults of `waitForTask`: caps of 200 ms, 400 ms, 800 ms, 1.6 s, then
 * 2 s, for at most 10 minutes. A task that takes 5 s is polled about 9 times
 * (against 50 times at a fixed 100 ms), and its end is seen about 0.6 s
 * later on average (see `bench/src/client-wait-bench.ts`).
 */
export const DEFAULT_POLL_BACKOFF: BackoffOptions = { initialMs: 200, factor: 2, maxDelayMs: 2_000, maxTotalMs: 10 * 60_000 };

/** The defaults between retries of a failed idempotent call and between stream resumptions. */
export const DEFAULT_RETRY_BACKOFF: BackoffOptions = { initialMs: 100, factor: 2, maxDelayMs: 2_000, maxTotalMs: 30_000 };

/** Fills the unset fields of `options` from `defaults`, and checks them. */
export function backoffOptions(options: Partial<BackoffOptions> | undefined, defaults: BackoffOptions): BackoffOptions {
  const merged = { ...defaults, ...options };
  if (!(merged.initialMs >= 0) || !(merged.factor >= 1) || !(merged.maxDelayMs >= 0) || !(merged.maxTotalMs >= 0)) {
    throw new RangeError(
      `Invalid backoff ${JSON.stringify(merged)}: initialMs, maxDelayMs and maxTotalMs must be >= 0 and factor >= 1`,
    );
  }
  return merged;
}

/** The upper bound of the delay before attempt `attempt` (0-based): `min(maxDelayMs, initialMs * factor^attempt)`. */
export function backoffCap(attempt: number, options: BackoffOptions): number {
  return Math.min(options.maxDelayMs, options.initialMs * options.factor ** attempt);
}

/**
 * The delay before attempt `attempt` (0-based): full jitter, a uniformly
 * random time in `[0, backoffCap(attempt))`. A `retryAfterMs` the server
 * asked for is a floor.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: Random, retryAfterMs?: number): number {
  const jittered = Math.floor(random() * backoffCap(attempt, options));
  return retryAfterMs !== undefined ? Math.max(jittered, retryAfterMs) : jittered;
}
