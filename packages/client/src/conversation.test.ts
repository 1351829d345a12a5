import type { TaskState } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from './client.js';
import { collect, referenceService, serviceTransport } from '../test/support.js';
import { routeNextMessage } from './task-routing.js';

const service = referenceService();
afterEach(() => service.close());

describe('the task-id rule (seed 000)', () => {
  const ALL: readonly [TaskState, 'continue' | 'follow-up' | 'fresh'][] = [
    ['TASK_STATE_INPUT_REQUIRED', 'continue'],
    ['TASK_STATE_AUTH_REQUIRED', 'continue'],
    ['TASK_STATE_COMPLETED', 'follow-up'],
    ['TASK_STATE_FAILED', 'follow-up'],
    ['TASK_STATE_CANCELED', 'follow-up'],
    ['TASK_STATE_REJECTED', 'follow-up'],
    ['TASK_STATE_SUBMITTED', 'fresh'],
    ['TASK_STATE_WORKING', 'fresh'],
  ];
  it.each(ALL)('current task %s → %s', (state, action) => {
    const route = routeNextMessage({ contextId: 'ctx', taskId: 'A', state });
    expect(route.action).toBe(action);
    expect(route.contextId).toBe('ctx');
    expect(route.taskId).toBe(action === 'continue' ? 'A' : undefined);
    expect(route.referenceTaskIds).toEqual(action === 'follow-up' ? ['A'] : undefined);
  });

  it('no task yet → a fresh task (with the context, once known)', () => {
    expect(routeNextMessage({})).toEqual({ action: 'fresh', contextId: undefined });
    expect(routeNextMessage({ contextId: 'ctx' })).toEqual({ action: 'fresh', contextId: 'ctx' });
  });
});

/** How to bring a conversation's current task into each state, with the reference agent. */
const REACH: Record<string, (c: ReturnType<A2AClient['conversation']>) => Promise<unknown>> = {
  'input-required': (c) => c.send('provide a sunset quote'),
  'auth-required': (c) => c.send('auth'),
  completed: (c) => c.send('echo done'),
  failed: (c) => c.send('fail'),
  rejected: (c) => c.send('reject'),
  canceled: async (c) => {
    await c.send('slow 50 20', { configuration: { returnImmediately: true }, wait: false });
    await c.cancel();
  },
  submitted: (c) => c.send('slow 50 20', { configuration: { returnImmediately: true }, wait: false }),
  working: async (c) => {
    await c.send('slow 50 20', { configuration: { returnImmediately: true }, wait: false });
    await c.wait({ until: ['TASK_STATE_WORKING'], backoff: { initialMs: 1, maxDelayMs: 5 } });
  },
};

describe('Conversation over the reference agent: the task id of the next message, for every state', () => {
  it.each(Object.keys(REACH))('after a task that is %s', async (name) => {
    const client = new A2AClient(serviceTransport(service));
    const convo = client.conversation();
    await REACH[name]!(convo);
    const first = { taskId: convo.taskId!, contextId: convo.contextId!, state: convo.state };
    expect(first.state).toBe(`TASK_STATE_${name.toUpperCase().replace('-', '_')}`);

    const reply = await convo.send('insta');
    const sent = reply.task!.history!.find((m) => m.role === 'ROLE_USER' && m.parts.some((p) => 'text' in p && p.text === 'insta'))!;
    expect(reply.task!.contextId).toBe(first.contextId);
    expect(sent.contextId).toBe(first.contextId);
    if (name === 'input-required' || name === 'auth-required') {
      expect(reply.task!.id).toBe(first.taskId);
      expect(sent.referenceTaskIds).toBeUndefined();
    } else if (name === 'working' || name === 'submitted') {
      expect(reply.task!.id).not.toBe(first.taskId);
      expect(sent.referenceTaskIds).toBeUndefined();
    } else {
      expect(reply.task!.id).not.toBe(first.taskId);
      expect(sent.referenceTaskIds).toEqual([first.taskId]);
    }
    await client.cancelTask({ id: first.taskId }).catch(() => {});
  });
});

describe('Conversation', () => {
  it('runs the seed’s sunset-quote flow without the caller ever handling a task id', async () => {
    const convo = new A2AClient(serviceTransport(service)).conversation();
    const ask = await convo.send('provide a sunset quote');
    expect(ask.text).toBe('Do you want Instagram, Pinterest, or General?');
    const taskA = convo.taskId;
    const quote = await convo.send('insta');
    expect(quote.task!.id).toBe(taskA);
    expect(quote.task!.status.state).toBe('TASK_STATE_COMPLETED');
    const long = quote.task!.artifacts![0]!.parts[0]!;
    const shorter = await convo.send('make it shorter');
    expect(shorter.task!.id).not.toBe(taskA);
    const short = shorter.task!.artifacts![0]!.parts[0]!;
    expect('text' in short && 'text' in long && short.text.length < long.text.length).toBe(true);
    // The view shows the whole conversation once, across both tasks.
    const texts = convo.view.messages.map((m) => m.parts.map((p) => ('text' in p ? p.text : '')).join(''));
    expect(texts.filter((t) => t === 'insta')).toHaveLength(1);
    expect(texts[0]).toBe('provide a sunset quote');
    expect(texts.at(-1)).toBe('Here is a shorter version.');
    expect(convo.view.artifacts.map((a) => a.taskId)).toEqual([taskA, convo.taskId]);
  });

  it('streams a turn, keeping its state and view, and can be saved and restored', async () => {
    const client = new A2AClient(serviceTransport(service));
    const convo = client.conversation();
    const events = await collect(convo.stream('provide a sunset quote'));
    expect(events.length).toBeGreaterThan(1);
    expect(convo.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const saved = JSON.parse(JSON.stringify(convo));
    const restored = client.conversation(saved);
    expect(restored.next()).toMatchObject({ action: 'continue', taskId: convo.taskId });
    await collect(restored.stream('pinterest'));
    expect(restored.state).toBe('TASK_STATE_COMPLETED');
    expect(restored.view.artifacts[0]!.artifact.name).toBe('quote');
  });

  it('waits by polling when the agent answers before the task settles', async () => {
    const convo = new A2AClient(serviceTransport(service), { poll: { initialMs: 1, maxDelayMs: 4 } }).conversation();
    const reply = await convo.send('slow 3 1', { configuration: { returnImmediately: true } });
    expect(reply.task!.status.state).toBe('TASK_STATE_COMPLETED');
    expect(reply.text).toBe('Done: 3 chunks.');
  });

  it('re-routes when the task it meant to continue ended meanwhile', async () => {
    const client = new A2AClient(serviceTransport(service));
    const convo = client.conversation();
    await convo.send('provide a sunset quote');
    const stale = convo.taskId!;
    await client.cancelTask({ id: stale });
    expect(convo.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const reply = await convo.send('echo again');
    expect(reply.task!.id).not.toBe(stale);
    expect(reply.task!.history![0]!.referenceTaskIds).toEqual([stale]);
  });
});
