import { describe, expect, it } from 'vitest';
import { createMemoryTaskStore, inMemoryTransport, TaskService } from '@taskwire/core';
import { referenceAgent } from './agent.js';
import { PLATFORM_QUESTION } from './quotes.js';

function setup() {
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent });
  return { service, client: inMemoryTransport(service) };
}
const user = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...extra },
});

describe('reference agent', () => {
  it('echo completes with the text', async () => {
    const { client } = setup();
    const result = await client.unary('SendMessage', user('echo hello'));
    expect('task' in result && result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect('task' in result && result.task.status.message?.parts).toEqual([{ text: 'hello' }]);
  });

  it('ping answers with a message and makes no task', async () => {
    const { client } = setup();
    const result = await client.unary('SendMessage', user('ping', { contextId: 'ctx-ping' }));
    expect(result).toEqual({ message: { messageId: expect.any(String), role: 'ROLE_AGENT', parts: [{ text: 'pong' }], contextId: 'ctx-ping' } });
    expect((await client.unary('ListTasks', { contextId: 'ctx-ping' })).tasks).toEqual([]);
  });

  it('says what it writes with the right article (an insta quote, a pinterest quote)', async () => {
    const { client } = setup();
    for (const [platform, said] of [['insta', 'Writing an insta quote…'], ['pinterest', 'Writing a pinterest quote…']] as const) {
      const asked = await client.unary('SendMessage', user('a quote please'));
      if (!('task' in asked)) throw new Error('expected a task');
      const done = await client.unary('SendMessage', user(platform, { taskId: asked.task.id, contextId: asked.task.contextId }));
      if (!('task' in done)) throw new Error('expected a task');
      expect(done.task.history?.map((m) => m.parts.map((p) => ('text' in p ? p.text : '')).join(''))).toContain(said);
    }
  });

  it('quote asks, continues on the same task, and make it shorter references it', async () => {
    const { client } = setup();
    const first = await client.unary('SendMessage', user('provide a sunset quote'));
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task.status.message?.parts).toEqual([{ text: PLATFORM_QUESTION }]);
    const second = await client.unary('SendMessage', user('insta', { taskId: first.task.id, contextId: first.task.contextId }));
    if (!('task' in second)) throw new Error('expected a task');
    expect(second.task.id).toBe(first.task.id);
    expect(second.task.status.state).toBe('TASK_STATE_COMPLETED');
    const quote = second.task.artifacts?.[0]?.parts[0];
    expect(quote && 'text' in quote && quote.text.length).toBeGreaterThan(0);
    const third = await client.unary(
      'SendMessage',
      user('make it shorter', { contextId: first.task.contextId, referenceTaskIds: [first.task.id] }),
    );
    if (!('task' in third)) throw new Error('expected a task');
    expect(third.task.id).not.toBe(first.task.id);
    const shorter = third.task.artifacts?.[0]?.parts[0];
    expect(shorter && 'text' in shorter && quote && 'text' in quote && shorter.text.length < quote.text.length).toBe(true);
  });

  it('slow streams progress and chunks in order', async () => {
    const { client } = setup();
    const events = [];
    for await (const e of client.stream('SendStreamingMessage', user('slow 5 0'))) events.push(e);
    const progress = events.flatMap((e) => ('statusUpdate' in e.response ? [e.response.statusUpdate.metadata?.progress] : []));
    expect(progress.slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((current) => ({ current, total: 5 })));
    const seqs = events.map((e) => e.sequence);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const last = events.at(-1)!.response;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('slow with no delay lets the event loop turn between rounds (other requests are not starved)', async () => {
    const { client } = setup();
    const started = await client.unary('SendMessage', { ...user('slow 2000 0'), configuration: { returnImmediately: true } });
    if (!('task' in started)) throw new Error('expected a task');
    const id = started.task.id;
    // An I/O callback of another request would run no sooner than this: it must see the run still going (2,000 rounds take far longer than one time slice).
    const seenByNextTurn = await new Promise<string>((resolve) => setImmediate(() => void client.unary('GetTask', { id }).then((t) => resolve(t.status.state))));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(seenByNextTurn);
    for await (const e of client.stream('SubscribeToTask', { id })) void e;
    expect((await client.unary('GetTask', { id })).status.state).toBe('TASK_STATE_COMPLETED');
  });
});
