// The client speaks the version the card announces: A2A 1.1 (task generations, long-poll GetTask) with an agent
// whose interfaces say 1.1, 1.0 as before with one whose interfaces say 1.0, on every binding; `protocolVersion` pins it.
import type { Agent, StreamEvent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateClientOptions } from '../src/create-client.js';
import { createClient } from '../src/create-client.js';
import type { Served } from './serve-reference.js';
import { BINDINGS, NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

/** Releases the tasks that wait for it (a message `wait <key>`), so a long poll sees the task move on. */
const gates = new Map<string, () => void>();
const agent: Agent = async (ctx) => {
  const [word, key] = ctx.text.split(' ');
  if (word === 'wait' && key) await new Promise<void>((resolve) => gates.set(key, resolve));
  await ctx.working();
  await ctx.complete('done');
};

const card = referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
let next: Served;
let plain: Served;
beforeAll(async () => {
  next = await serveEverywhere(new TaskService({ store: createMemoryTaskStore(), agent, card, protocol: { v1_1: true } }), {
    interfaces: (all) => all.map((i) => ({ ...i, protocolVersion: '1.1' })),
  });
  plain = await serveEverywhere(new TaskService({ store: createMemoryTaskStore(), agent, card }));
});
afterAll(async () => {
  await next.close();
  await plain.close();
});

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] });
const generationOf = ({ response: r }: StreamEvent): unknown =>
  'task' in r ? r.task.generation : 'statusUpdate' in r ? r.statusUpdate.generation : 'artifactUpdate' in r ? r.artifactUpdate.generation : undefined;

describe.each(BINDINGS)('the protocol version over %s', (binding) => {
  const open = (served: Served, options: CreateClientOptions = {}) =>
    createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, timeoutMs: 60_000, ...options });

  it('speaks 1.1 to an agent whose card announces it: generations in answers and events, and a long-poll GetTask', async () => {
    const client = await open(next);
    try {
      expect(client.interface?.protocolBinding).toBe(binding);
      expect(client.version).toBe('1.1');
      const sent = await client.sendMessage({ message: message('hi') });
      if (!('task' in sent)) throw new Error('expected a task');
      expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.task.generation).toBeGreaterThanOrEqual(3);

      const events: StreamEvent[] = [];
      for await (const event of client.sendStreamingMessage({ message: message('hi') })) events.push(event);
      const generations = events.map(generationOf);
      expect(generations.every((g) => typeof g === 'number')).toBe(true);
      expect(generations).toEqual([1, 2, 3]); // submitted, working, completed

      const key = crypto.randomUUID();
      const started = await client.sendMessage({ message: message(`wait ${key}`), configuration: { returnImmediately: true } });
      if (!('task' in started)) throw new Error('expected a task');
      const seen = started.task.generation!;
      expect(seen).toBeGreaterThanOrEqual(1);
      const polled = client.getTask({ id: started.task.id, currentGeneration: seen });
      // The task cannot move past `seen` before the agent is let go: the poll answers with a later generation.
      await expect.poll(() => gates.has(key), { timeout: 30_000 }).toBe(true);
      gates.get(key)!();
      const moved = await polled;
      expect(moved.generation).toBeGreaterThan(seen);
    } finally {
      await client.close();
    }
  });

  it('speaks 1.0 to an agent whose card announces 1.0, as before (no generations)', async () => {
    const client = await open(plain);
    try {
      expect(client.version).toBe('1.0');
      const sent = await client.sendMessage({ message: message('hi') });
      if (!('task' in sent)) throw new Error('expected a task');
      expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.task.generation).toBeUndefined();
      const events: StreamEvent[] = [];
      for await (const event of client.sendStreamingMessage({ message: message('hi') })) events.push(event);
      expect(events.length).toBeGreaterThan(0);
      expect(events.map(generationOf).every((g) => g === undefined)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('keeps 1.0 with a 1.1 agent when pinned to it', async () => {
    const client = await open(next, { protocolVersion: '1.0' });
    try {
      expect(client.version).toBe('1.0');
      const sent = await client.sendMessage({ message: message('hi') });
      expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect('task' in sent && sent.task.generation).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
