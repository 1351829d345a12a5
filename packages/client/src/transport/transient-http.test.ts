import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '@taskwire/core';
import { withRetry } from '../retry.js';
import { isTransient, retryAfterOf } from '../transient.js';
import { jsonRpcTransport } from './json-rpc.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A real HTTP server on 127.0.0.1 answering with `answer(n)` for its n-th request. */
async function serve(answer: (n: number) => { status: number; headers?: Record<string, string>; body: string }): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answer(++n);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/jsonrpc`;
}

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };
const ok = JSON.stringify({ jsonrpc: '2.0', id: 1, result: task });

/** A clock that records the waits it is asked for and returns at once. */
function recordingClock(): Clock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, now: () => 0, sleep: async (ms) => void waits.push(ms) };
}

describe('fetch transports: transient failures', () => {
  it('a refused connection is a transient error', async () => {
    const url = await serve(() => ({ status: 200, body: ok }));
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = await jsonRpcTransport({ url }).unary('GetTask', { id: 't1' }).catch((e: unknown) => e);
    expect(isTransient(error)).toBe(true);
    expect(String(error)).toContain('Could not reach the agent');
  });

  it('HTTP 503 with Retry-After is transient, and an idempotent call is retried after at least that long', async () => {
    const url = await serve((n) => (n < 3 ? { status: 503, headers: { 'retry-after': '2' }, body: 'busy' } : { status: 200, body: ok }));
    const clock = recordingClock();
    const first = await jsonRpcTransport({ url }).unary('GetTask', { id: 't1' }).catch((e: unknown) => e);
    expect(isTransient(first)).toBe(true);
    expect(retryAfterOf(first)).toBe(2_000);
    const result = await withRetry(jsonRpcTransport({ url }), { attempts: 3, clock }).unary('GetTask', { id: 't1' });
    expect(result).toEqual(task);
    expect(clock.waits).toHaveLength(1);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(2_000);
  });

  it('a non-idempotent call (SendMessage) is not retried on a transient failure', async () => {
    let calls = 0;
    const url = await serve(() => (calls++, { status: 503, body: 'busy' }));
    const clock = recordingClock();
    const error = await withRetry(jsonRpcTransport({ url }), { attempts: 3, clock })
      .unary('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } })
      .catch((e: unknown) => e);
    expect(isTransient(error)).toBe(true);
    expect(calls).toBe(1);
    expect(clock.waits).toEqual([]);
  });
});
