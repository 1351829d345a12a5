import type { Logger, Task } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffDelay } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { isTransient, retryAfterOf } from './transient.js';

/** Raised when a task did not reach the awaited state within `maxTotalMs`. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';

  constructor(
    readonly taskId: string,
    /** How long the client waited, in ms. */
    readonly waitedMs: number,
    /** The last state read, if any read succeeded. */
    readonly lastTask: Task | undefined,
  ) {
    super(
      `Task ${taskId} did not reach the awaited state within ${waitedMs} ms (last seen: ${lastTask?.status.state ?? 'nothing, every read failed'}); ` +
        'wait again, raise backoff.maxTotalMs, or cancel the task',
    );
  }
}

/** What {@link pollTask} needs. */
export interface PollOptions {
  readonly backoff: BackoffOptions;
  readonly clock: Clock;
  readonly random: Random;
  readonly signal?: AbortSignal | undefined;
  readonly logger?: Logger | undefined;
  /** Wait before the first read too (when the caller has just read the task). */
  readonly delayFirst?: boolean;
}

/**
 * Reads a task again and again, yielding each read. The first read is
 * immediate (unless `delayFirst`); wait `n` (0-based) before a later read is
 * a random time below `min(maxDelayMs, initialMs * factor^n)`: exponential
 * backoff with full jitter. A transient read failure is skipped (its `Retry-After` is a floor
 * of the next delay); any other error is thrown. Throws
 * {@link WaitTimeoutError} once `maxTotalMs` has passed, and `signal.reason`
 * when the signal aborts. The consumer stops it by breaking out.
 */
export async function* pollTask(taskId: string, read: () => Promise<Task>, options: PollOptions): AsyncGenerator<Task> {
  const { clock, backoff, signal } = options;
  const started = clock.now();
  let last: Task | undefined;
  let retryAfterMs: number | undefined;
  let delays = 0;
  for (let wait = options.delayFirst === true; ; wait = true) {
    if (wait) {
      const elapsed = clock.now() - started;
      if (elapsed >= backoff.maxTotalMs) throw new WaitTimeoutError(taskId, elapsed, last);
      const delay = Math.min(backoffDelay(delays++, backoff, options.random, retryAfterMs), backoff.maxTotalMs - elapsed);
      await clock.sleep(delay, signal);
    }
    retryAfterMs = undefined;
    signal?.throwIfAborted();
    try {
      last = await read();
    } catch (error) {
      if (!isTransient(error) || signal?.aborted) throw error;
      retryAfterMs = retryAfterOf(error);
      options.logger?.warn({ taskId }, `Reading task ${taskId} failed (${(error as Error).message}); polling on`);
      continue;
    }
    yield last;
  }
}
