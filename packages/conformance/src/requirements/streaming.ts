import type { StreamEvent } from '@taskwire/core';
import { expect } from 'vitest';
import { requirement } from '../requirement.js';

const stateOf = (e: StreamEvent) =>
  'task' in e.response ? e.response.task.status.state : 'statusUpdate' in e.response ? e.response.statusUpdate.status.state : undefined;

/** SendStreamingMessage and SubscribeToTask: order, ends, resume, fan-out. */
export const streamingRequirements = [
  requirement('stream-order', '3.1.2', 'a stream starts with the Task, delivers updates in order and closes at the terminal state', async (h) => {
    const events = await h.stream('slow 4 0');
    expect('task' in events[0]!.response).toBe(true);
    const sequences = events.map((e) => e.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    const chunks = events.flatMap((e) => ('artifactUpdate' in e.response ? [e.response.artifactUpdate] : []));
    expect(chunks.map((c) => [Boolean(c.append), Boolean(c.lastChunk)])).toEqual([
      [false, false],
      [true, false],
      [true, false],
      [true, true],
    ]);
  }),
  requirement('stream-message-reply', '3.1.2', 'a message-only stream holds exactly one Message and closes', async (h) => {
    const events = await h.stream('ping', { contextId: 'ctx-stream-reply' });
    expect(events).toHaveLength(1);
    const only = events[0]!.response;
    if (!('message' in only)) throw new Error(`expected a message, got ${JSON.stringify(only)}`);
    expect(only.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'pong' }], contextId: 'ctx-stream-reply' });
    expect((await h.client.unary('ListTasks', { contextId: 'ctx-stream-reply' })).tasks).toEqual([]);
  }),
  requirement('stream-ends-interrupted', '3.1.2', 'a stream ends when the task becomes input-required', async (h) => {
    const events = await h.stream('quote');
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_INPUT_REQUIRED');
  }),
  requirement('stream-continue', '3.4.3', 'a streamed continuation of an input-required task runs on the same task', async (h) => {
    const first = await h.stream('quote');
    const taskId = 'task' in first[0]!.response ? first[0]!.response.task.id : '';
    const second = await h.stream('insta', { taskId });
    expect('task' in second[0]!.response && second[0]!.response.task.id).toBe(taskId);
    expect(second.some((e) => 'artifactUpdate' in e.response)).toBe(true);
    expect(stateOf(second.at(-1)!)).toBe('TASK_STATE_COMPLETED');
  }),
  requirement('subscribe-first-task', '3.1.6', 'SubscribeToTask starts with the current Task and follows it to the end', async (h) => {
    const task = await h.send('slow 3 20', {}, { returnImmediately: true });
    const events = await h.collect(h.client.stream('SubscribeToTask', { id: task.id }));
    expect('task' in events[0]!.response && events[0]!.response.task.id).toBe(task.id);
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
  }),
  requirement('subscribe-through-interrupted', '3.1.6', 'SubscribeToTask follows an input-required task through its continuation to the terminal state', async (h) => {
    const asked = await h.send('quote');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const events = h.client.stream('SubscribeToTask', { id: asked.id })[Symbol.asyncIterator]();
    const first = await events.next();
    expect(first.value && 'task' in first.value.response && first.value.response.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const continued = await h.send('general', { taskId: asked.id });
    expect(continued.status.state).toBe('TASK_STATE_COMPLETED');
    const rest: StreamEvent[] = [];
    for (let r = await events.next(); !r.done; r = await events.next()) rest.push(r.value);
    expect(rest.some((e) => 'artifactUpdate' in e.response && e.response.artifactUpdate.artifact.artifactId === 'quote')).toBe(true);
    expect(stateOf(rest.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    expect(rest.map((e) => e.sequence)).toEqual([...rest.map((e) => e.sequence)].sort((a, b) => a - b));
  }),
  requirement('subscribe-terminal', '3.1.6', 'SubscribeToTask on a terminal task is UnsupportedOperation (-32004)', async (h) => {
    const task = await h.send('echo done');
    const error = await h.error(h.collect(h.client.stream('SubscribeToTask', { id: task.id })));
    expect(error.code).toBe(-32004);
  }),
  requirement('subscribe-unknown', '3.1.6', 'SubscribeToTask on an unknown task is TaskNotFound (-32001)', async (h) => {
    const error = await h.error(h.collect(h.client.stream('SubscribeToTask', { id: 'nope' })));
    expect(error.code).toBe(-32001);
  }),
  requirement('subscribe-fan-out', '3.5.2', 'every subscriber of a task receives the same events in the same order', async (h) => {
    const task = await h.send('slow 5 10', {}, { returnImmediately: true });
    const [a, b] = await Promise.all([
      h.collect(h.client.stream('SubscribeToTask', { id: task.id })),
      h.collect(h.client.stream('SubscribeToTask', { id: task.id })),
    ]);
    const tail = (events: StreamEvent[]) => events.filter((e) => !('task' in e.response));
    const common = Math.max(a[0]!.sequence, b[0]!.sequence);
    const after = (events: StreamEvent[]) => tail(events).filter((e) => e.sequence > common);
    expect(after(a)).toEqual(after(b));
    expect(stateOf(a.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    expect(stateOf(b.at(-1)!)).toBe('TASK_STATE_COMPLETED');
  }),
  requirement('subscribe-resume', '3.5.2', 'a stream resumed after sequence N replays exactly the later events', async (h) => {
    const full = await h.stream('slow 6 0');
    const cut = full[3]!.sequence;
    const taskId = 'task' in full[0]!.response ? full[0]!.response.task.id : '';
    const resumed = await h.collect(h.client.stream('SubscribeToTask', { id: taskId, afterSequence: cut }));
    expect(resumed).toEqual(full.filter((e) => e.sequence > cut));
  }),
  requirement('subscribe-beyond-log', '3.5.2', 'a stream resumed after a sequence beyond the task log is InvalidParams (-32602), never other events', async (h) => {
    const full = await h.stream('slow 2 0');
    const taskId = 'task' in full[0]!.response ? full[0]!.response.task.id : '';
    const error = await h.error(h.collect(h.client.stream('SubscribeToTask', { id: taskId, afterSequence: full.at(-1)!.sequence + 5 })));
    expect(error.code).toBe(-32602);
  }),
  requirement('stream-disconnect-keeps-task', '3.5.2', 'closing a stream does not cancel the task', async (h) => {
    for await (const event of h.client.stream('SendStreamingMessage', { message: { messageId: 'm-dc', role: 'ROLE_USER', parts: [{ text: 'slow 3 10' }] } })) {
      expect('task' in event.response).toBe(true);
      break;
    }
    await h.idle();
    const list = await h.client.unary('ListTasks', {});
    expect(list.tasks[0]?.status.state).toBe('TASK_STATE_COMPLETED');
  }),
];
