import { A2AError, METHOD_NAMES } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from './client.js';
import { createSteppedClock } from './clock.js';
import { IDEMPOTENT_METHODS, withRetry } from './retry.js';
import type { RecordingTransport } from '../test/support.js';
import { referenceService, serviceTransport } from '../test/support.js';
import { isTransient, parseRetryAfter, TransientError } from './transient.js';

const service = referenceService();
afterEach(() => service.close());

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
const count = (t: RecordingTransport, method: string) => t.calls.filter((c) => c.method === method).length;

describe('retry of transient failures', () => {
  it('applies to the idempotent reads only, derived from the method table', () => {
    expect([...IDEMPOTENT_METHODS].sort()).toEqual(
      ['GetExtendedAgentCard', 'GetTask', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'ListTasks'].sort(),
    );
    for (const m of ['SendMessage', 'CancelTask', 'CreateTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'] as const) {
      expect(IDEMPOTENT_METHODS.has(m), m).toBe(false);
    }
    expect(METHOD_NAMES).toContain('GetTask');
  });

  it('retries GetTask and ListTasks after a dropped connection, with jittered backoff and Retry-After', async () => {
    const clock = createSteppedClock();
    const sent = await new A2AClient(serviceTransport(service), { retry: false }).sendMessage(message('echo hi'));
    const id = 'task' in sent ? sent.task.id : '';
    const faults = [new TypeError('fetch failed'), new TransientError('busy', { retryAfterMs: 1_500 })];
    const transport = serviceTransport(service, { failUnary: (_m, i) => faults[i % 3] });
    const client = new A2AClient(transport, { retry: { clock, random: () => 0.5 } });
    const reading = client.getTask({ id });
    await clock.runNext();
    await clock.runNext();
    expect((await reading).status.state).toBe('TASK_STATE_COMPLETED');
    expect(count(transport, 'GetTask')).toBe(3);
    expect(clock.sleeps).toEqual([50, 1_500]);
    const listing = client.listTasks();
    await clock.runNext();
    await clock.runNext();
    expect((await listing).tasks).toHaveLength(1);
  });

  it('never retries SendMessage or CancelTask: the failure reaches the caller after one try', async () => {
    const clock = createSteppedClock();
    const transport = serviceTransport(service, { failUnary: () => new TypeError('fetch failed') });
    const client = new A2AClient(transport, { retry: { clock, attempts: 5 } });
    await expect(client.sendMessage(message('echo hi'))).rejects.toThrow('fetch failed');
    await expect(client.cancelTask({ id: 'x' })).rejects.toThrow('fetch failed');
    expect(transport.calls.map((c) => c.method)).toEqual(['SendMessage', 'CancelTask']);
    expect(clock.sleeps).toEqual([]);
  });

  it('never retries protocol errors, and stops after `attempts` tries', async () => {
    const clock = createSteppedClock();
    const transport = serviceTransport(service);
    const client = new A2AClient(transport, { retry: { clock } });
    const error = await client.getTask({ id: 'missing' }).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('TaskNotFound');
    expect(count(transport, 'GetTask')).toBe(1);

    const down = serviceTransport(service, { failUnary: () => new TransientError('connection refused') });
    const failing = new A2AClient(down, { retry: { clock, attempts: 3, random: () => 0 } }).getTask({ id: 'x' }).catch((e: unknown) => e);
    await clock.runNext();
    await clock.runNext();
    expect(await failing).toMatchObject({ message: 'connection refused' });
    expect(count(down, 'GetTask')).toBe(3);
  });

  it('withRetry with attempts 1 is the transport itself', () => {
    const transport = serviceTransport(service);
    expect(withRetry(transport, { attempts: 1 })).toBe(transport);
  });
});

describe('transient errors', () => {
  it.each([
    ['a TransientError (an A2AError marked transient)', new TransientError('x'), true],
    ['any error marked transient: true', Object.assign(new A2AError('Internal', 'x'), { transient: true }), true],
    ['fetch failing', new TypeError('fetch failed'), true],
    ['a socket reset in the cause chain', new Error('read failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }), true],
    ['gRPC UNAVAILABLE', Object.assign(new Error('14 UNAVAILABLE'), { code: 14, details: 'No connection established' }), true],
    ['a protocol error', new A2AError('TaskNotFound'), false],
    ['gRPC UNAVAILABLE as an A2AError', new A2AError('Internal', 'unavailable', { grpcStatus: 'UNAVAILABLE' }), true],
    ['an abort', new DOMException('aborted', 'AbortError'), false],
    ['a timeout', new DOMException('timed out', 'TimeoutError'), false],
    ['a programming error', new TypeError('x is not a function'), false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isTransient(error)).toBe(expected);
  });

  it('TransientError is an A2AError (the transport contract) carrying Retry-After', () => {
    const error = new TransientError('busy', { retryAfterMs: 2000, status: 503 });
    expect(A2AError.is(error)).toBe(true);
    expect([error.kind, error.retryAfterMs, error.status]).toEqual(['Internal', 2000, 503]);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
