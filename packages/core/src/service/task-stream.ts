import type { StreamEvent } from '../calls.js';
import { A2AError } from '../errors.js';
import type { Message, StreamResponse, Task, TaskState } from '../schema/index.js';
import type { TaskHead, TaskRecord } from '../store/task-store.js';
import { isInterrupted, isSettled, isTerminal } from '../schema/index.js';
import type { Subscription } from './event-hub.js';
import type { TaskEngine } from './task-engine.js';
import type { TaskOutcome } from './task-outcomes.js';


/** The state a stream response leaves its task in, if it says. */
export function stateOf(response: StreamResponse): TaskState | undefined {
  if ('task' in response) return response.task.status.state;
  if ('statusUpdate' in response) return response.statusUpdate.status.state;
  return undefined;
}

/**
 * With several processes on the store, what a blocking call waits for:
 * `waiter` (the engine's settled waiter of `record`'s task, fed by this
 * process's run), or the task's committed events showing it settled,
 * whichever comes first. Those events are this process's own and, through
 * the coordinator's wake-ups, every other process's: a call whose run here
 * stopped (its lease lost while the process was paused, say) still ends
 * once another process settles the task, with the task as stored. Resolves
 * `undefined` when `signal` aborts; the follow stops once it resolves.
 */
export async function settledAnywhere(engine: TaskEngine, record: TaskRecord, waiter: Promise<TaskOutcome | undefined>, signal: AbortSignal | undefined): Promise<TaskOutcome | undefined> {
  const subscription = engine.hub.subscribe(record.task.id, record.lastSequence);
  const stored = (async (): Promise<TaskOutcome | undefined> => {
    for (;;) {
      const event = await subscription.next(signal);
      if (event === undefined) return undefined;
      const state = stateOf(event.event);
      if (state === undefined || !isSettled(state)) continue;
      const now = await engine.get(record.task.id);
      if (now !== undefined && isSettled(now.task.status.state)) return { record: now };
    }
  })();
  try {
    // Neither an abort nor a failed read ends the wait through the follow: the waiter (which also hears the signal) says how it ended.
    return await Promise.race([waiter, stored.then((outcome) => outcome ?? waiter, () => waiter)]);
  } finally {
    engine.hub.unsubscribe(subscription);
  }
}

/**
 * Where a followed stream stops: `'turn'` at a terminal or interrupted state
 * (a SendStreamingMessage: the agent's turn is over), `'terminal'` only at a
 * terminal state (SubscribeToTask follows the task through continuations).
 */
export type StreamEnd = 'turn' | 'terminal';

/** Where a followed stream starts and when it may stop. */
export interface FollowOptions {
  /** Items sent first (the task snapshot), before the subscription's events. */
  readonly head: readonly StreamEvent[];
  readonly until: StreamEnd;
  /** With `until: 'turn'`: replayed events up to this sequence do not end the stream on an interrupted state unless it is the last. */
  readonly replayUntil: number;
  /** The task as a snapshot shows it (history projection), when events the reader missed are gone. */
  readonly snapshot: (task: Task) => Task;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Yields `head`, then every event of the subscription, in order and once,
 * until the task reaches the stream's end (see {@link StreamEnd}), the
 * caller's signal aborts, or the consumer stops; then unsubscribes. When the
 * store no longer has events the reader missed (retention), it yields the
 * task as it is now instead and goes on after it. `return()` unsubscribes
 * even before the first `next()` (a generator stopped before it starts never
 * runs its `finally`).
 */
export function followTask(engine: TaskEngine, subscription: Subscription, options: FollowOptions): AsyncGenerator<StreamEvent> {
  const events = follow(engine, subscription, options);
  const stop = events.return.bind(events);
  events.return = (value) => {
    engine.hub.unsubscribe(subscription);
    return stop(value);
  };
  return events;
}

async function* follow(engine: TaskEngine, subscription: Subscription, options: FollowOptions): AsyncGenerator<StreamEvent> {
  const ends = (state: TaskState | undefined, sequence: number): boolean =>
    state !== undefined && (isTerminal(state) || (options.until === 'turn' && isInterrupted(state) && sequence >= options.replayUntil));
  try {
    for (const item of options.head) {
      engine.sent(subscription.taskId, item.sequence);
      yield item;
      if (ends(stateOf(item.response), item.sequence)) return;
    }
    let skipped = subscription.skipped;
    for (;;) {
      const stored = await subscription.next(options.signal);
      if (!stored) return;
      let item: StreamEvent = { sequence: stored.sequence, response: stored.event };
      if (subscription.skipped !== skipped) {
        skipped = subscription.skipped;
        // Events this reader missed are gone: the task as it is now replaces them.
        const record = await engine.get(subscription.taskId);
        if (!record) return;
        if (record.lastSequence >= stored.sequence) {
          subscription.lastSequence = record.lastSequence;
          item = { sequence: record.lastSequence, response: { task: options.snapshot(record.task) } };
        }
      }
      engine.sent(subscription.taskId, item.sequence);
      yield item;
      if (ends(stateOf(item.response), item.sequence)) return;
    }
  } finally {
    engine.hub.unsubscribe(subscription);
  }
}

/** How {@link subscribeToTask} opens a stream. */
export interface SubscribeOptions {
  /** The caller's resume point: the last sequence it has. */
  readonly afterSequence?: number | undefined;
  /** The task as the stream's first item shows it (history projection). */
  readonly snapshot: (task: Task) => Task;
  /**
   * Reads the task's whole record again, as visible to the caller: called
   * only when the stream was opened on a {@link TaskHead} and must start
   * with the task (no resume point, or one whose next event the log no
   * longer keeps).
   */
  readonly record: () => Promise<TaskRecord>;
  /**
   * `'terminal'` (SubscribeToTask, the default) or `'turn'`: the resumption
   * of a SendStreamingMessage that dropped, which ends where that stream
   * would have ended (nothing more when the event at `afterSequence` had
   * ended it).
   */
  readonly until?: StreamEnd | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * SubscribeToTask over a visible task record, or its head alone (see
 * `TaskStore.head`: a resume that only replays events then never reads the
 * task itself):
 * - with `afterSequence` older than the log's end (and still retained), the
 *   events after it are replayed, then live ones follow (from inside a gap
 *   the store left after lost commits, the task as logged after the gap);
 * - with `afterSequence` at the end (nothing missed), only later events come;
 * - otherwise the stream starts with the current task (read whole through
 *   `options.record` when `found` is a head), then live events;
 * - it follows the task through interrupted states, to a terminal state;
 * - a terminal task with nothing to replay is UnsupportedOperation;
 * - `afterSequence` beyond the log's end is InvalidParams saying so (the
 *   store lost events the client saw, as after a database failover with
 *   asynchronous replication): never other events under numbers it has.
 */
export async function subscribeToTask(engine: TaskEngine, found: TaskRecord | TaskHead, options: SubscribeOptions): Promise<AsyncIterable<StreamEvent>> {
  const [taskId, state] = 'task' in found ? [found.task.id, found.task.status.state] : [found.taskId, found.state];
  const { lastSequence } = found;
  const until = options.until ?? 'terminal';
  const after = options.afterSequence;
  if (after !== undefined && after > lastSequence) throw beyondLog(taskId, after, lastSequence);
  const behind = after !== undefined && after < lastSequence;
  // A resumed turn reads the event it stopped at too: if that one ended the turn, there is nothing more.
  const read = behind ? await engine.store.readEvents(taskId, until === 'turn' ? after - 1 : after, 2) : [];
  const stoppedAt = read[0];
  if (until === 'turn' && stoppedAt !== undefined && stoppedAt.sequence === after && endsTurn(stoppedAt.event)) return (async function* () {})();
  // Resumable too: from inside a gap the task closes (lost commits, the task settled after them: see `TaskStore.commitFrom`).
  const resumable = behind && read.some((e) => e.sequence === after! + 1 || (e.sequence > after! + 1 && 'task' in e.event));
  if (isTerminal(state) && !resumable) {
    throw new A2AError('UnsupportedOperation', `Task ${taskId} is ${state}; there is nothing to subscribe to (use GetTask to read it)`, { taskId });
  }
  const follow = { until, replayUntil: until === 'turn' ? 0 : lastSequence, snapshot: options.snapshot, signal: options.signal };
  if (resumable) {
    const subscription = engine.hub.subscribe(taskId, after!);
    subscription.catchUp();
    return followTask(engine, subscription, { ...follow, head: [] });
  }
  const upToDate = after !== undefined && after >= lastSequence;
  if (until === 'turn' && upToDate && isInterrupted(state)) return (async function* () {})();
  let head: StreamEvent[] = [];
  if (!upToDate) {
    // The stream starts with the task: a head does not hold it, so the record is read and places the stream itself.
    if (!('task' in found)) return subscribeToTask(engine, await options.record(), options);
    head = [{ sequence: lastSequence, response: { task: options.snapshot(found.task) } }];
  }
  const subscription = engine.hub.subscribe(taskId, lastSequence);
  // A commit between reading `found` and subscribing reached no reader: unless the in-memory record of a
  // running task shows none happened, the first read goes to the store's log (a last event is never lost).
  if (engine.peek(taskId)?.lastSequence !== lastSequence) subscription.catchUp();
  return followTask(engine, subscription, { ...follow, head });
}

/** The error of a resume point the stored log does not reach. */
function beyondLog(taskId: string, after: number, lastSequence: number): A2AError {
  return new A2AError(
    'InvalidParams',
    `Invalid parameters: afterSequence ${after} is beyond the stored log of task ${taskId}, which ends at ${lastSequence}: ` +
      'the task store lost events this client saw (as after a database failover that lost recent commits). Read the task again (GetTask) instead of resuming.',
    { taskId, afterSequence: String(after), lastSequence: String(lastSequence), cause: 'after-sequence-beyond-log' },
  );
}

function endsTurn(event: StreamResponse): boolean {
  const state = stateOf(event);
  return state !== undefined && isSettled(state);
}

/** The stream of an agent that answered with a message: that one message (sequence 0: there is no task log), then the end. */
export async function* answered(message: Message): AsyncGenerator<StreamEvent> {
  yield { sequence: 0, response: { message } };
}
