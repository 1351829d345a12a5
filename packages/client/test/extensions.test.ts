// The client's `extensions` option (per client and per call) and `activatedExtensions` on every answer, over every binding.
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, forwardableExtensions, inMemoryTransport, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activatedExtensions } from '../src/activated-extensions.js';
import { createClient } from '../src/create-client.js';
import type { Served } from './serve-reference.js';
import { BINDINGS, NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

const TIMESTAMP = 'https://example.com/ext/timestamp/v1';
const TRACE = 'https://example.com/ext/trace/v1';

/** Activates both extensions when asked for them; says what was requested. */
const agent: Agent = async (ctx) => {
  ctx.extensions.activate(TIMESTAMP);
  ctx.extensions.activate(TRACE);
  await ctx.working();
  await ctx.complete(ctx.extensions.requested.join(' ') || 'none');
};

let served: Served;
beforeAll(async () => {
  const plain = referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const card = { ...plain, capabilities: { ...plain.capabilities, extensions: [{ uri: TIMESTAMP }, { uri: TRACE }] } };
  served = await serveEverywhere(new TaskService({ store: createMemoryTaskStore(), agent, card }));
});
afterAll(() => served.close());

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] });

describe.each(BINDINGS)('extensions over %s', (binding) => {
  it('asks for the client and call extensions, and marks every answer and stream event with the activated set', async () => {
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], extensions: [TIMESTAMP] });
    try {
      const sent = await client.sendMessage({ message: message() });
      expect('task' in sent && sent.task.status.message?.parts).toEqual([{ text: TIMESTAMP }]);
      expect(activatedExtensions(sent)).toEqual([TIMESTAMP]);

      const both = await client.sendMessage({ message: message() }, { extensions: [TRACE] });
      expect(activatedExtensions(both)).toEqual([TIMESTAMP, TRACE]);

      const task = 'task' in both ? both.task : undefined;
      expect(activatedExtensions(await client.getTask({ id: task!.id }))).toEqual([]);

      const events = [];
      for await (const event of client.sendStreamingMessage({ message: message() }, { extensions: [TRACE] })) events.push(event);
      expect(events.length).toBeGreaterThan(1);
      for (const event of events) expect(activatedExtensions(event)).toEqual([TIMESTAMP, TRACE]);
    } finally {
      await client.close();
    }
  });

  it('leaves answers of a client that asks for no extension unmarked', async () => {
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl] });
    try {
      const sent = await client.sendMessage({ message: message() });
      expect('task' in sent && sent.task.status.message?.parts).toEqual([{ text: 'none' }]);
      expect(activatedExtensions(sent)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('an agent that calls another agent', () => {
  it('forwards the requested extensions the callee declares (forwardableExtensions)', async () => {
    const OWN = 'https://example.com/ext/only-the-relay/v1';
    const relay: Agent = async (ctx) => {
      const client = await createClient(served.url);
      try {
        const extensions = forwardableExtensions(ctx.extensions.requested, client.card);
        const answer = await client.sendMessage({ message: message() }, { extensions });
        const said = 'task' in answer ? answer.task.status.message?.parts[0] : undefined;
        await ctx.complete(`${said && 'text' in said ? said.text : ''} | activated there: ${activatedExtensions(answer)?.join(' ')}`);
      } finally {
        await client.close();
      }
    };
    const caller = inMemoryTransport(new TaskService({ store: createMemoryTaskStore(), agent: relay }));
    const sent = await caller.unary('SendMessage', { message: message() }, { headers: { 'a2a-extensions': `${OWN},${TRACE}` } });
    expect('task' in sent && sent.task.status.message?.parts).toEqual([{ text: `${TRACE} | activated there: ${TRACE}` }]);
  });
});
