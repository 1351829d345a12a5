// The client's idempotentSends: a first send whose answer is lost is sent again with the same Idempotency-Key, over every binding.
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/create-client.js';
import type { Interceptor } from '../src/interceptors.js';
import { TransientError } from '../src/transient.js';
import type { Served } from './serve-reference.js';
import { BINDINGS, NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

let runs = 0;
const agent: Agent = async (ctx) => {
  runs++;
  await ctx.complete('done');
};

/** Loses the answer of every SendMessage's first attempt (after the server took it), and records each attempt's key. */
function losingFirstAnswers(keys: (string | undefined)[]): Interceptor {
  return {
    before: (call) => void (call.method === 'SendMessage' && keys.push(call.headers['idempotency-key'])),
    after: (call) => {
      if (call.method === 'SendMessage' && call.attempt === 0) throw new TransientError('the answer was lost on the way back', { status: 503 });
    },
  };
}

let served: Served;
beforeAll(async () => {
  const card = referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  served = await serveEverywhere(new TaskService({ store: createMemoryTaskStore(), agent, card, protocol: { v1_1: true } }));
});
afterAll(() => served.close());

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] });

describe.each(BINDINGS)('idempotent sends over %s', (binding) => {
  const open = (idempotentSends: boolean, keys: (string | undefined)[]) =>
    createClient(served.url, {
      preferred: [binding],
      transports: NODE_TRANSPORTS,
      trustedOrigins: [served.grpcUrl],
      idempotentSends,
      interceptors: [losingFirstAnswers(keys)],
      retry: { backoff: { initialMs: 1, maxDelayMs: 5 } },
    });

  it('sends a lost first send again with the same key and gets the task it made; unkeyed, the loss is the answer', async () => {
    const keys: (string | undefined)[] = [];
    const client = await open(true, keys);
    try {
      runs = 0;
      const sent = await client.sendMessage({ message: message() });
      expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(runs).toBe(1);
      const mine = `order-${crypto.randomUUID()}`;
      const own = await client.sendMessage({ message: message() }, { idempotencyKey: mine });
      expect(keys.slice(2)).toEqual([mine, mine]);
      expect('task' in own && own.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(runs).toBe(2);
    } finally {
      await client.close();
    }
    const plainKeys: (string | undefined)[] = [];
    const plain = await open(false, plainKeys);
    try {
      await expect(plain.sendMessage({ message: message() })).rejects.toBeInstanceOf(TransientError);
      expect(plainKeys).toEqual([undefined]);
    } finally {
      await plain.close();
    }
  });
});
