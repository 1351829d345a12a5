import type { StreamEvent } from '@taskwire/core';
import { METHOD_NAMES, METHODS } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from './client.js';
import { createSteppedClock } from './clock.js';
import { collect, referenceService, serviceTransport } from '../test/support.js';

const services: ReturnType<typeof referenceService>[] = [];
const service = (streaming = true) => {
  const s = referenceService(streaming);
  services.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

describe('A2AClient', () => {
  it('has one lowerCamelCase method per operation of the method table, of the right kind', async () => {
    const client = new A2AClient(serviceTransport(service()));
    for (const name of METHOD_NAMES) {
      const method = (client as unknown as Record<string, unknown>)[name.charAt(0).toLowerCase() + name.slice(1)];
      expect(typeof method, name).toBe('function');
    }
    const sent = await client.sendMessage(message('echo hello'));
    expect('task' in sent && sent.task.status.message?.parts).toEqual([{ text: 'hello' }]);
    const stream = client.sendStreamingMessage(message('echo streamed'));
    expect(Symbol.asyncIterator in stream).toBe(true);
    expect(METHODS.SendStreamingMessage.kind).toBe('stream');
    const list = await client.listTasks();
    expect(list.tasks.length).toBeGreaterThan(0);
  });

  it('sends the interface tenant with every request that does not set one', async () => {
    const transport = serviceTransport(service());
    const client = new A2AClient(transport, { tenant: 'acme' });
    await client.sendMessage(message('echo hi'));
    await client.listTasks();
    await client.listTasks({ tenant: 'other' });
    await collect(client.sendStreamingMessage(message('echo hi')));
    expect(transport.calls.map((c) => (c.params as { tenant?: string }).tenant)).toEqual(['acme', 'acme', 'other', 'acme']);
    // Tasks made under the tenant are visible under it only.
    expect((await client.listTasks()).tasks).toHaveLength(2);
    expect((await new A2AClient(transport).listTasks()).tasks).toHaveLength(0);
  });

  it('polls instead of streaming when the card says the agent does not stream', async () => {
    const svc = service(false);
    const transport = serviceTransport(svc);
    const clock = createSteppedClock();
    const client = new A2AClient(transport, { card: svc.card, clock, random: () => 0.5 });
    expect(client.streams).toBe(false);
    const events: StreamEvent[] = [];
    const reading = (async () => {
      for await (const event of client.sendStreamingMessage(message('slow 3 5'))) events.push(event);
    })();
    // Move the stepped clock whenever the poller sleeps, until the stream ends.
    let ended = false;
    void reading.finally(() => (ended = true));
    while (!ended) {
      await Promise.race([clock.whenSleeping(1), reading]);
      if (clock.pending > 0) {
        await svc.idle();
        await clock.runNext();
      }
    }
    await reading;
    expect(transport.calls[0]!.method).toBe('SendMessage');
    expect((transport.calls[0]!.params as { configuration?: { returnImmediately?: boolean } }).configuration?.returnImmediately).toBe(true);
    expect(transport.calls.slice(1).every((c) => c.method === 'GetTask')).toBe(true);
    expect(transport.calls.some((c) => c.method === 'SendStreamingMessage')).toBe(false);
    const states = events.map((e) => ('task' in e.response ? e.response.task.status.state : undefined));
    expect(states[0]).toBe('TASK_STATE_SUBMITTED');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    const last = events.at(-1)!.response;
    expect('task' in last && last.task.artifacts?.[0]?.parts).toHaveLength(3);
  });

  it('a polled SubscribeToTask follows the task through input-required to its end, as a streamed one does', async () => {
    const svc = service(false);
    const asked = await svc.unary('SendMessage', message('a quote please'));
    if (!('task' in asked)) throw new Error('expected a task');
    const clock = createSteppedClock();
    const client = new A2AClient(serviceTransport(svc), { card: svc.card, clock, random: () => 0.5 });
    const events = client.subscribeToTask({ id: asked.task.id })[Symbol.asyncIterator]();
    const first = await events.next();
    expect(first.value).toMatchObject({ response: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    await svc.unary('SendMessage', { message: { ...message('insta').message, taskId: asked.task.id } });
    const next = events.next();
    await clock.whenSleeping(1);
    await clock.runNext();
    expect((await next).value).toMatchObject({ response: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    expect((await events.next()).done).toBe(true);
  });

  it('waitForTask polls GetTask with the client’s tenant and returns the settled task', async () => {
    const svc = service();
    const transport = serviceTransport(svc);
    const client = new A2AClient(transport, { tenant: 't' });
    const sent = await client.sendMessage({ ...message('quote please'), configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    const task = await client.waitForTask(id, { backoff: { initialMs: 1, maxDelayMs: 5 } });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(transport.calls.filter((c) => c.method === 'GetTask').every((c) => (c.params as { tenant?: string }).tenant === 't')).toBe(true);
  });
});
