import type { Logger, Task, TaskState, Transport } from '@taskwire/core';
import { isSettled, isTerminal } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffOptions, DEFAULT_POLL_BACKOFF } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { systemClock } from './clock.js';
import { followTask } from './follow-task.js';
import { pollTask, WaitTimeoutError } from './poll-task.js';
import type { ResumeOptions } from './resumable-stream.js';

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
  /** Called with every task read, and with the task after each event when following a stream (e.g. to show progress). */
  readonly onPoll?: (task: Task) => void;
  /**
   * Follow the task with SubscribeToTask instead of polling (`A2AClient`
   * sets it when the agent's card says it streams). Polling takes over when
   * the agent does not stream the task or the stream keeps dropping.
   */
  readonly stream?: boolean;
  /** How a dropped subscription is resumed (see `resumableStream`). */
  readonly resume?: ResumeOptions;
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
 * Waits until task `id` meets `until` and resolves with it, read with
 * GetTask (honouring `historyLength`) right after it met it. A task that
 * will never meet `until` (a terminal one waiting for `input-required`) is
 * returned as soon as it is terminal, since nothing can change any more.
 *
 * With `stream` (and a transport that streams) it follows the task with
 * SubscribeToTask, resuming dropped streams, and closes the subscription as
 * soon as the events show the condition met: the end is noticed as it
 * happens, in two calls. It polls instead when the agent does not stream
 * the task, ends the stream before the condition, or the stream keeps
 * dropping.
 *
 * Polling reads GetTask spaced by exponential backoff with full jitter (see
 * {@link DEFAULT_POLL_BACKOFF}); transient read failures are skipped
 * (honouring `Retry-After`), other errors (e.g. TaskNotFound) are thrown.
 * Rejects with `WaitTimeoutError` after `backoff.maxTotalMs`, and with the
 * signal's reason when `signal` aborts.
 */
export async function waitForTask(transport: Pick<Transport, 'unary'> & Partial<Pick<Transport, 'stream'>>, id: string, options: WaitOptions = {}): Promise<Task> {
  const done = waitPredicate(options.until);
  const over = (task: Task) => done(task) || isTerminal(task.status.state);
  const clock = options.clock ?? systemClock;
  const backoff = backoffOptions(options.backoff, DEFAULT_POLL_BACKOFF);
  const started = clock.now();
  const read = () =>
    transport.unary(
      'GetTask',
      { id, ...(options.tenant !== undefined && { tenant: options.tenant }), ...(options.historyLength !== undefined && { historyLength: options.historyLength }) },
      { signal: options.signal },
    );
  if (options.stream && transport.stream) {
    const followed = await followTask(transport as Transport, id, over, {
      tenant: options.tenant,
      signal: options.signal,
      maxMs: backoff.maxTotalMs,
      resume: options.resume,
      clock,
      random: options.random ?? Math.random,
      logger: options.logger,
      onUpdate: options.onPoll,
    });
    if (followed.kind === 'timeout') throw new WaitTimeoutError(id, clock.now() - started, followed.task);
    if (followed.kind === 'met') {
      const task = await read();
      options.onPoll?.(task);
      return task;
    }
    options.logger?.info?.({ taskId: id, outcome: followed.kind }, `Following task ${id} with SubscribeToTask stopped (${followed.kind}); polling it`);
  }
  const remaining = Math.max(0, backoff.maxTotalMs - (clock.now() - started));
  const polls = pollTask(id, read, {
    backoff: { ...backoff, maxTotalMs: remaining },
    clock,
    random: options.random ?? Math.random,
    signal: options.signal,
    logger: options.logger,
  });
  for await (const task of polls) {
    options.onPoll?.(task);
    if (over(task)) return task;
  }
  throw new Error('unreachable: polling ends by returning or throwing');
}
