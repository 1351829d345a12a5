export type { Clock } from '../clock.js';
export { systemClock } from '../clock.js';

/** When to give up on a notification and how long to wait between attempts. */
export interface RetryPolicy {
  /** Attempts per notification, the first included (default 8). Past it, the notification is dead-lettered. */
  readonly maxAttempts: number;
  /** The cap of the first wait, in ms (default 1,000); each later cap doubles. */
  readonly initialDelayMs: number;
  /** The largest cap, in ms (default 5 minutes); also bounds a receiver's `Retry-After`. */
  readonly maxDelayMs: number;
}

/** The default {@link RetryPolicy}: 8 attempts, waits capped at 1 s, 2 s, 4 s ... 64 s (at most about 2 minutes in all). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 8, initialDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

/** Fills the unset fields of `policy` from the defaults, and checks them. */
export function retryPolicy(policy: Partial<RetryPolicy> | undefined): RetryPolicy {
  const merged = { ...DEFAULT_RETRY_POLICY, ...policy };
  if (!(Number.isInteger(merged.maxAttempts) && merged.maxAttempts >= 1) || !(merged.initialDelayMs >= 0) || !(merged.maxDelayMs >= 0)) {
    throw new RangeError(`Invalid retry policy ${JSON.stringify(merged)}: maxAttempts must be an integer >= 1, delays >= 0`);
  }
  return merged;
}

/**
 * The wait after failed attempt `attempt` (1-based), with full jitter: a
 * uniformly random time in `[0, min(maxDelayMs, initialDelayMs * 2^(attempt-1)))`.
 * A `Retry-After` the receiver sent is a floor (capped at `maxDelayMs`).
 */
export function retryDelay(attempt: number, policy: RetryPolicy, random: () => number, retryAfterMs?: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor(random() * cap);
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, policy.maxDelayMs));
}

/** Reads a `Retry-After` header (seconds or an HTTP date) as milliseconds from `now`; `undefined` when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
