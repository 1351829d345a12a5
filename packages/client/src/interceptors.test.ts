import type { CallOptions, Transport } from '@taskwire/core';
import { A2AError, inMemoryTransport } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from './client.js';
import { createSteppedClock } from './clock.js';
import type { CallInfo, CallOutcome, CallTiming } from './interceptors.js';
import { apiKeyInterceptor, bearerInterceptor, headersInterceptor, loggingInterceptor, timingInterceptor } from './interceptors.js';
import { collect, referenceService, serviceTransport } from '../test/support.js';

const service = referenceService();
afterEach(() => service.close());

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

describe('interceptors', () => {
  it('run before and after every unary call, in onion order, and set headers the transport sends', async () => {
    const transport = serviceTransport(service);
    const log: string[] = [];
    const client = new A2AClient(transport, {
      interceptors: [
        apiKeyInterceptor('k-123'),
        bearerInterceptor(async () => 'fresh-token'),
        headersInterceptor((call) => ({ 'X-Call': `${call.method}#${call.attempt}` })),
        { before: (c) => void log.push(`before 1 ${c.method}`), after: (c, o) => void log.push(`after 1 ${c.method} ${o.ok}`) },
        { before: (c) => void log.push(`before 2 ${c.method}`), after: (c, o) => void log.push(`after 2 ${c.method} ${o.ok}`) },
      ],
    });
    await client.sendMessage(message('echo hi'));
    expect(transport.calls[0]!.options?.headers).toEqual({ 'x-api-key': 'k-123', authorization: 'Bearer fresh-token', 'x-call': 'SendMessage#0' });
    expect(log).toEqual(['before 1 SendMessage', 'before 2 SendMessage', 'after 2 SendMessage true', 'after 1 SendMessage true']);
  });

  it('see failures with their error, and may change params', async () => {
    const outcomes: CallOutcome[] = [];
    const client = new A2AClient(serviceTransport(service), {
      interceptors: [
        {
          before(call: CallInfo) {
            if (call.method === 'GetTask') call.params = { ...(call.params as object), id: 'rewritten' };
          },
          after: (_c, o) => void outcomes.push(o),
        },
      ],
    });
    const error = await client.getTask({ id: 'original' }).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.metadata.taskId).toBe('rewritten');
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.ok).toBe(false);
  });

  it('wrap streams: after runs once when the stream ends, with the number of events', async () => {
    const outcomes: CallOutcome[] = [];
    const client = new A2AClient(serviceTransport(service), { interceptors: [{ after: (_c, o) => void outcomes.push(o) }] });
    const events = await collect(client.sendStreamingMessage(message('slow 3 0')));
    expect(outcomes).toEqual([{ ok: true, events: events.length, durationMs: expect.any(Number) }]);
    // A consumer that stops early also ends the call.
    for await (const _ of client.sendStreamingMessage(message('slow 3 0'))) break;
    expect(outcomes).toHaveLength(2);
    expect(outcomes[1]).toMatchObject({ ok: true, events: 1 });
  });

  it('time and log calls by the chain’s clock', async () => {
    const clock = createSteppedClock(1_000);
    const timings: CallTiming[] = [];
    const warnings: string[] = [];
    const slowTransport: Transport = {
      async unary(method, params, options) {
        await clock.advance(250);
        return inMemoryTransport(service).unary(method, params, options);
      },
      stream: (method, params, options) => inMemoryTransport(service).stream(method, params, options),
    };
    const client = new A2AClient(slowTransport, {
      clock,
      interceptors: [timingInterceptor((t) => timings.push(t)), loggingInterceptor({ warn: (_fields, m) => warnings.push(m ?? ''), error: () => {} })],
    });
    await client.sendMessage(message('echo hi'));
    await client.getTask({ id: 'nope' }).catch(() => {});
    expect(timings).toEqual([
      { method: 'SendMessage', attempt: 0, ok: true, durationMs: 250, events: undefined },
      { method: 'GetTask', attempt: 0, ok: false, durationMs: 250, events: undefined },
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^A2A GetTask failed: Task nope was not found/)]);
  });
});

describe('per-call signal and timeout', () => {
  /** A transport whose unary calls never answer (and ignore their signal). */
  const stuck: Transport = {
    unary: () => new Promise<never>(() => {}),
    stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }) }),
  };

  it('an aborted signal rejects the call with its reason, even when the transport does not stop', async () => {
    const controller = new AbortController();
    const call = new A2AClient(stuck).getTask({ id: 't' }, { signal: controller.signal });
    controller.abort(new Error('user navigated away'));
    await expect(call).rejects.toThrow('user navigated away');
  });

  it('a timeout (per call, or the client default) rejects with a TimeoutError', async () => {
    await expect(new A2AClient(stuck).getTask({ id: 't' }, { timeoutMs: 5 })).rejects.toMatchObject({ name: 'TimeoutError' });
    await expect(new A2AClient(stuck, { timeoutMs: 5 }).listTasks()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('passes the signal down so the transport can stop its work', async () => {
    const seen: (CallOptions | undefined)[] = [];
    const spy: Transport = { unary: async (_m, _p, o) => (seen.push(o), { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 }) as never, stream: stuck.stream };
    const controller = new AbortController();
    await new A2AClient(spy).listTasks({}, { signal: controller.signal, headers: { 'x-trace': '1' } });
    expect(seen[0]!.signal).toBe(controller.signal);
    expect(seen[0]!.headers).toEqual({ 'x-trace': '1' });
  });
});
