import type { StoredEvent } from '../store/task-store.js';
import type { Clock, RetryPolicy } from './backoff.js';
import { retryDelay } from './backoff.js';
import type { PushMetrics } from '../observability/push-metrics.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import type { PushConfigStore } from './push-config-store.js';
import type { AttemptDeps } from './webhook-attempt.js';
import { attemptDelivery } from './webhook-attempt.js';

/**
 * How sending one event to one config, with retries, ended: acknowledged
 * (2xx); failed (given up on after `attempts`, the last `error`, sent to
 * `url`); `settled` (the config's cursor was already past it); `gone` (the
 * config was deleted); `stopped` (the delivery closed).
 */
export type SendResult =
  | { readonly kind: 'acknowledged' }
  | { readonly kind: 'failed'; readonly url: string; readonly attempts: number; readonly error: string }
  | { readonly kind: 'settled' | 'gone' | 'stopped' };

/** What {@link sendWithRetries} shares with the rest of its delivery. */
export interface SendDeps {
  readonly configs: PushConfigStore;
  readonly attempt: AttemptDeps;
  /** The delivery's limit on requests in flight. */
  readonly slots: ConcurrencyLimit;
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  readonly random: () => number;
  /** Incremented per attempt, acknowledgement and failure. */
  readonly counters: { attempts: number; delivered: number; failures: number };
  /** Told about every attempt's outcome (the delivery's OpenTelemetry counters). */
  readonly metrics?: PushMetrics | undefined;
  /** True once the delivery is closing. */
  readonly closed: () => boolean;
}

/**
 * Sends one event to the config `(taskId, configId)` as it is at each
 * attempt (read again every time), holding a slot per attempt, until a 2xx,
 * a failure not to retry, or `policy.maxAttempts`; failures wait with
 * backoff and jitter (at least a Retry-After). With `live`, it ends as
 * `settled` as soon as the config's cursor is at or past the event. It
 * ends as `stopped` before an attempt once `holds()` is false (the
 * delivery's claim on the config was lost: another process delivers it),
 * checked again after the attempt got its slot, right before it sends.
 */
export async function sendWithRetries(deps: SendDeps, taskId: string, configId: string, event: StoredEvent, live: boolean, holds: () => boolean = () => true): Promise<SendResult> {
  for (let attempt = 1; ; attempt++) {
    const entry = await deps.configs.get(taskId, configId);
    if (deps.closed() || !holds()) return { kind: 'stopped' };
    if (!entry) return { kind: 'gone' };
    if (live && entry.delivered >= event.sequence) return { kind: 'settled' };
    await deps.slots.acquire();
    // Checked again once the slot is held, right before sending: the wait for a slot may have outlasted the claim
    // (a paused process), and another process may have delivered later events meanwhile.
    if (deps.closed() || !holds()) {
      deps.slots.release();
      return { kind: 'stopped' };
    }
    deps.counters.attempts++;
    const outcome = await attemptDelivery(entry.config, event, deps.attempt).finally(() => deps.slots.release());
    if (outcome.kind === 'stopped') return outcome;
    deps.metrics?.attempt(outcome.kind === 'acknowledged');
    if (outcome.kind === 'acknowledged') {
      deps.counters.delivered++;
      return outcome;
    }
    deps.counters.failures++;
    if (!outcome.retry || attempt >= deps.policy.maxAttempts) return { kind: 'failed', url: entry.config.url, attempts: attempt, error: outcome.error };
    try {
      await deps.clock.sleep(retryDelay(attempt, deps.policy, deps.random, outcome.retryAfterMs), deps.attempt.stop);
    } catch {
      return { kind: 'stopped' };
    }
  }
}
