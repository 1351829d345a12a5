import type { CallOptions, Logger, ParamsOf, StreamEvent, StreamMethodName, TaskState, Transport } from '@taskwire/core';
import { A2AError, isSettled, isTerminal, stateOf } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffDelay, backoffOptions, DEFAULT_RETRY_BACKOFF } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { systemClock } from './clock.js';
import { isTransient, retryAfterOf, TransientError } from './transient.js';

/** How a dropped stream is resumed. */
export interface ResumeOptions {
  /** Resumptions in a row without a new event before giving up (default 5). */
  readonly attempts?: number;
  /** Delays between resumptions (default {@link DEFAULT_RETRY_BACKOFF}); `maxTotalMs` bounds the waits of a streak of drops, a `Retry-After` included. */
  readonly backoff?: Partial<BackoffOptions>;
  /** Which errors mean "the connection dropped" (default {@link isTransient}). */
  readonly isTransient?: (error: unknown) => boolean;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger?: Logger;
  /** Told each time the stream dropped and is about to be resumed (to show "reconnecting", say); the next event means it resumed. */
  readonly onDrop?: (drop: StreamDrop) => void;
}

/** A dropped stream about to be resumed (see {@link ResumeOptions.onDrop}). */
export interface StreamDrop {
  readonly taskId: string;
  /** The sequence of the last event seen (the resumption asks for what comes after it). */
  readonly afterSequence: number | undefined;
  /** How many drops in a row, this one included (it gives up after `attempts`). */
  readonly drops: number;
  /** How long it waits before resuming, in ms. */
  readonly delayMs: number;
  /** What ended the stream (undefined for a clean end before the task settled). */
  readonly error: unknown;
}

function taskIdOf(event: StreamEvent): string | undefined {
  const r = event.response;
  if ('task' in r) return r.task.id;
  if ('statusUpdate' in r) return r.statusUpdate.taskId;
  if ('artifactUpdate' in r) return r.artifactUpdate.taskId;
  return r.message.taskId;
}

/**
 * Opens `method` on `transport` and, when the stream drops before it is
 * over, re-subscribes with `SubscribeToTask { id, afterSequence }` from the
 * last event seen, so the consumer gets every event once, in order. A
 * SendStreamingMessage is over at the first terminal or interrupted state
 * (the agent's turn: it stops there even when its resumption, a
 * SubscribeToTask, would go on); a SubscribeToTask when the task is
 * terminal, or when the server ends it cleanly at an interrupted state (as
 * servers before A2A 1.0's rule did). A drop is a transient error, or an end
 * before that point. Events a
 * resumed stream repeats (sequence not above the last one seen) are skipped.
 * When the stream's sequence numbers are not increasing (a peer that does
 * not number its events), it re-subscribes without `afterSequence`: the
 * server then starts with the whole task. When the task has ended and its
 * events are gone, it reads the task (GetTask) and yields it last.
 *
 * A stream that drops before naming its task (or that answered with a
 * message only) cannot be resumed: the error is thrown. Protocol errors,
 * aborts and `attempts` drops in a row without progress end it with the error,
 * and so does a streak of drops whose waits (a server's `Retry-After`
 * included) would pass the backoff's `maxTotalMs`.
 */
export async function* resumableStream<M extends StreamMethodName>(
  transport: Transport,
  method: M,
  params: ParamsOf<M>,
  options: CallOptions & ResumeOptions = {},
): AsyncGenerator<StreamEvent> {
  const attempts = options.attempts ?? 5;
  const turn = method === 'SendStreamingMessage';
  const backoff = backoffOptions(options.backoff, DEFAULT_RETRY_BACKOFF);
  const clock = options.clock ?? systemClock;
  const transient = options.isTransient ?? isTransient;
  const call: CallOptions = { signal: options.signal, headers: options.headers, timeoutMs: options.timeoutMs, onExtensions: options.onExtensions };
  const tenant = (params as { tenant?: string }).tenant;
  let taskId = method === 'SubscribeToTask' ? (params as ParamsOf<'SubscribeToTask'>).id : undefined;
  let last: number | undefined;
  let sequenced = true;
  let state: TaskState | undefined;
  let messageOnly = false;
  let resumed = false;
  let drops = 0;
  let waited = 0;
  let current = transport.stream(method, params, call);
  for (;;) {
    let dropped: unknown;
    try {
      for await (const event of current) {
        if (resumed && sequenced && last !== undefined && event.sequence <= last) continue;
        if (last !== undefined && event.sequence <= last) sequenced = false;
        last = event.sequence;
        taskId ??= taskIdOf(event);
        state = stateOf(event.response) ?? state;
        messageOnly = 'message' in event.response && state === undefined;
        drops = 0;
        waited = 0;
        yield event;
        // The turn is over: a resumption (a SubscribeToTask) would go on, so stop here (the first stream ends by itself).
        if (turn && resumed && state !== undefined && isSettled(state)) return;
      }
    } catch (error) {
      if (resumed && A2AError.is(error) && error.kind === 'UnsupportedOperation' && taskId !== undefined) {
        // The task ended and its events are gone: its final state is all there is.
        const task = await transport.unary('GetTask', { id: taskId, ...(tenant !== undefined && { tenant }) }, call);
        yield { sequence: last ?? 0, response: { task } };
        return;
      }
      if (!transient(error) || options.signal?.aborted) throw error;
      dropped = error;
    }
    const over = state !== undefined && (isTerminal(state) || (isSettled(state) && (turn || dropped === undefined)));
    if (over || messageOnly || options.signal?.aborted) return;
    if (taskId === undefined) {
      if (dropped !== undefined) throw dropped;
      return;
    }
    if (++drops > attempts) {
      throw new TransientError(
        `The stream of task ${taskId} dropped ${attempts + 1} times in a row before the task settled; ` +
          'check the connection to the agent, then call SubscribeToTask (or waitForTask) to follow it again',
        { cause: dropped },
      );
    }
    const delay = backoffDelay(drops - 1, backoff, options.random ?? Math.random, retryAfterOf(dropped));
    // The backoff bounds the waits of a streak of drops, a server's Retry-After included.
    if ((waited += delay) > backoff.maxTotalMs) {
      throw new TransientError(
        `The stream of task ${taskId} dropped and resuming it would mean waiting ${delay} ms (the server's Retry-After or the backoff), ` +
          `past the backoff's maxTotalMs of ${backoff.maxTotalMs} ms; call SubscribeToTask (or waitForTask) to follow it later`,
        { cause: dropped, retryAfterMs: delay },
      );
    }
    options.logger?.warn({
      taskId,
      afterSequence: last,
    }, `The stream of task ${taskId} dropped; resuming after sequence ${last ?? 'none'} in ${delay} ms`);
    options.onDrop?.({ taskId, afterSequence: last, drops, delayMs: delay, error: dropped });
    await clock.sleep(delay, options.signal);
    resumed = true;
    const resumeFrom = sequenced && last !== undefined ? { afterSequence: last } : {};
    current = transport.stream('SubscribeToTask', { id: taskId, ...(tenant !== undefined && { tenant }), ...resumeFrom }, call);
  }
}
