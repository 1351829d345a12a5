import type { CallOptions, ParamsOf, StreamEvent, StreamMethodName, Task, Transport } from '@taskwire/core';
import { isSettled, isTerminal } from '@taskwire/core';
import type { PollOptions } from './poll-task.js';
import { pollTask } from './poll-task.js';

/** A cheap fingerprint of what a UI would show of a task. */
function fingerprint(task: Task): string {
  return JSON.stringify([task.status, task.artifacts, task.history?.length]);
}

/**
 * A stream made of polls, for agents whose card says they do not stream:
 * `SendStreamingMessage` becomes `SendMessage { returnImmediately: true }`
 * and `SubscribeToTask` a first `GetTask`; then the task is polled (with
 * backoff) and yielded as a `{ task }` snapshot each time it changed, until
 * the stream is over as a real one would be: a SendStreamingMessage at a
 * terminal or interrupted state, a SubscribeToTask at a terminal state.
 * Snapshots carry sequence 0: polls have no resume point.
 */
export async function* pollingStream<M extends StreamMethodName>(
  transport: Transport,
  method: M,
  params: ParamsOf<M>,
  call: CallOptions,
  poll: PollOptions,
): AsyncGenerator<StreamEvent> {
  let first: Task;
  const tenant = (params as { tenant?: string }).tenant;
  if (method === 'SendStreamingMessage') {
    const send = params as ParamsOf<'SendStreamingMessage'>;
    const result = await transport.unary(
      'SendMessage',
      { ...send, configuration: { ...send.configuration, returnImmediately: true } },
      call,
    );
    if ('message' in result) {
      yield { sequence: 0, response: result };
      return;
    }
    first = result.task;
  } else {
    const { id } = params as ParamsOf<'SubscribeToTask'>;
    first = await transport.unary('GetTask', { id, ...(tenant !== undefined && { tenant }) }, call);
  }
  const over = method === 'SendStreamingMessage' ? isSettled : isTerminal;
  yield { sequence: 0, response: { task: first } };
  if (over(first.status.state)) return;
  let seen = fingerprint(first);
  const read = () => transport.unary('GetTask', { id: first.id, ...(tenant !== undefined && { tenant }) }, call);
  for await (const task of pollTask(first.id, read, { ...poll, signal: call.signal, delayFirst: true })) {
    const print = fingerprint(task);
    if (print !== seen) {
      seen = print;
      yield { sequence: 0, response: { task } };
    }
    if (over(task.status.state)) return;
  }
}
