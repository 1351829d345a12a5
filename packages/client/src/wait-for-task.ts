import type { Logger, Task, TaskState, Transport } from '@taskwire/core';
import { isSettled, isTerminal } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffOptions, DEFAULT_POLL_BACKOFF } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { systemClock } from './clock.js';
import { pollTask } from './poll-task.js';

/**
 * What `waitForTask` waits for: `'settled'` (terminal or interrupted: the
 * default), `'terminal'`, a list of states, or any predicate on the task.
 */
export type WaitCondition = 'settled' | 'terminal' | readonly TaskState[] | ((task: Task) => boolean);

/** Options of {@link waitForTask}. */
export interface WaitOptions {
  readonly until?: WaitCondition;
  /** Stops waiting (rejects with the signal's reason); the task itself goes on. */
  readonly signal?: AbortSignal;
  /** Delays between reads; unset fields come from {@link DEFAULT_POLL_BACKOFF}. */
  readonly backoff?: Partial<BackoffOptions>;
  /** History to fetch with each read (the GetTask `historyLength`). */
  readonly historyLength?: number;
  readonly tenant?: string;
  /** Called with every task read (e.g. to show progress). */
  readonly onPoll?: (task: Task) => void;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger?: Logger;
}

/** Turns a {@link WaitCondition} into a predicate. */
export function waitPredicate(until: WaitCondition = 'settled'): (task: Task) => boolean {
  if (typeof until === 'function') return until;
  if (until === 'settled') return (task) => isSettled(task.status.state);
  if (until === 'terminal') return (task) => isTerminal(task.status.state);
  const states = new Set(until);
  return (task) => states.has(task.status.state);
}

/**
 * Polls GetTask until the task meets `until` and resolves with it: reads
 * are spaced by exponential backoff with full jitter (see
 * {@link DEFAULT_POLL_BACKOFF}), transient read failures are skipped
 * (honouring `Retry-After`), other errors (e.g. TaskNotFound) are thrown.
 * Rejects with `WaitTimeoutError` after `backoff.maxTotalMs`, and with the
 * signal's reason when `signal` aborts. A task that will never meet `until`
 * (a terminal one waiting for `input-required`) is returned as soon as it is
 * terminal, since nothing can change any more.
 */
export async function waitForTask(transport: Pick<Transport, 'unary'>, id: string, options: WaitOptions = {}): Promise<Task> {
  const done = waitPredicate(options.until);
  const read = () =>
    transport.unary(
      'GetTask',
      { id, ...(options.tenant !== undefined && { tenant: options.tenant }), ...(options.historyLength !== undefined && { historyLength: options.historyLength }) },
      { signal: options.signal },
    );
  const polls = pollTask(id, read, {
    backoff: backoffOptions(options.backoff, DEFAULT_POLL_BACKOFF),
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    signal: options.signal,
    logger: options.logger,
  });
  for await (const task of polls) {
    options.onPoll?.(task);
    if (done(task) || isTerminal(task.status.state)) return task;
  }
  throw new Error('unreachable: polling ends by returning or throwing');
}
