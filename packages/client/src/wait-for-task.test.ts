import type { Task, TaskState, Transport } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { backoffCap, DEFAULT_POLL_BACKOFF } from './backoff.js';
import { createSteppedClock } from './clock.js';
import { WaitTimeoutError } from './poll-task.js';
import { TransientError } from './transient.js';
import { waitForTask } from './wait-for-task.js';

const task = (state: TaskState): Task => ({ id: 't1', contextId: 'c1', status: { state } });

/** A transport whose GetTask answers from `script` in turn (an Error is thrown), then repeats the last answer. */
function scripted(script: readonly (TaskState | Error)[]): Pick<Transport, 'unary'> & { reads: number } {
  const fake = {
    reads: 0,
    async unary(method: string) {
      if (method !== 'GetTask') throw new Error(`unexpected ${method}`);
      const step = script[Math.min(fake.reads++, script.length - 1)]!;
      if (step instanceof Error) throw step;
      return task(step);
    },
  };
  return fake as unknown as Pick<Transport, 'unary'> & { reads: number };
}

/** Runs `promise` to its end, moving the stepped clock to each sleep as it comes. */
async function drive<T>(clock: ReturnType<typeof createSteppedClock>, promise: Promise<T>): Promise<T> {
  let settled = false;
  const done = promise.finally(() => {
    settled = true;
  });
  done.catch(() => {});
  while (!settled) {
    await Promise.race([clock.whenSleeping(1), done.catch(() => {})]);
    if (clock.pending > 0) await clock.runNext();
  }
  return done;
}

describe('waitForTask: exponential backoff with full jitter under a stepped clock', () => {
  it('waits a random time below the growing cap before each read, and returns the settled task', async () => {
    const clock = createSteppedClock();
    const randoms = [0.99, 0.5, 0, 0.75, 0.25, 0.999, 0.5];
    let r = 0;
    const fake = scripted(['TASK_STATE_SUBMITTED', ...Array<TaskState>(7).fill('TASK_STATE_WORKING'), 'TASK_STATE_COMPLETED']);
    const result = await drive(clock, waitForTask(fake, 't1', { clock, random: () => randoms[r++ % randoms.length]! }));
    expect(result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(fake.reads).toBe(9);
    expect(clock.sleeps).toHaveLength(8);
    clock.sleeps.forEach((delay, n) => {
      const cap = backoffCap(n, DEFAULT_POLL_BACKOFF);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(cap);
      expect(delay).toBe(Math.floor(randoms[n % randoms.length]! * cap));
    });
    // The caps grow 200, 400, 800, 1600 and stop at the 2000 ms maximum.
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffCap(n, DEFAULT_POLL_BACKOFF))).toEqual([200, 400, 800, 1600, 2000, 2000]);
  });

  it('keeps every delay within [0, cap) for any random value, with custom settings', async () => {
    const clock = createSteppedClock();
    const backoff = { initialMs: 50, factor: 3, maxDelayMs: 1000, maxTotalMs: 60_000 };
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const fake = scripted([...Array<TaskState>(20).fill('TASK_STATE_WORKING'), 'TASK_STATE_INPUT_REQUIRED']);
    await drive(clock, waitForTask(fake, 't1', { clock, random, backoff }));
    expect(clock.sleeps).toHaveLength(20);
    clock.sleeps.forEach((delay, n) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(1000, 50 * 3 ** n));
    });
  });

  it('skips transient read failures and honours their Retry-After as a floor', async () => {
    const clock = createSteppedClock();
    const busy = new TransientError('503 Service Unavailable', { status: 503, retryAfterMs: 3_000 });
    const fake = scripted(['TASK_STATE_WORKING', busy, 'TASK_STATE_COMPLETED']);
    const result = await drive(clock, waitForTask(fake, 't1', { clock, random: () => 0 }));
    expect(result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(clock.sleeps).toEqual([0, 3_000]);
  });

  it('throws protocol errors such as TaskNotFound at once', async () => {
    const clock = createSteppedClock();
    const fake = scripted(['TASK_STATE_WORKING', new A2AError('TaskNotFound', 'gone')]);
    const error = await drive(clock, waitForTask(fake, 't1', { clock, random: () => 0.5 })).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('TaskNotFound');
    expect(fake.reads).toBe(2);
  });

  it('gives up with WaitTimeoutError after maxTotalMs, the last delay cut to fit', async () => {
    const clock = createSteppedClock();
    const fake = scripted(['TASK_STATE_WORKING']);
    const backoff = { initialMs: 1000, factor: 2, maxDelayMs: 1000, maxTotalMs: 2_500 };
    const error = await drive(clock, waitForTask(fake, 't1', { clock, random: () => 0.999, backoff })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).lastTask?.status.state).toBe('TASK_STATE_WORKING');
    expect((error as WaitTimeoutError).message).toMatch(/raise backoff.maxTotalMs/);
    expect(clock.sleeps).toEqual([999, 999, 502]);
    expect(clock.now()).toBe(2_500);
  });

  it('waits for the states asked for, and stops at a terminal state that can never match', async () => {
    const clock = createSteppedClock();
    const working = scripted(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);
    const seen = await drive(clock, waitForTask(working, 't1', { clock, random: () => 0, until: ['TASK_STATE_WORKING'] }));
    expect(seen.status.state).toBe('TASK_STATE_WORKING');
    const failed = scripted(['TASK_STATE_WORKING', 'TASK_STATE_FAILED']);
    const ended = await drive(clock, waitForTask(failed, 't1', { clock, random: () => 0, until: (t) => t.status.state === 'TASK_STATE_INPUT_REQUIRED' }));
    expect(ended.status.state).toBe('TASK_STATE_FAILED');
    const interrupted = scripted(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']);
    expect((await drive(clock, waitForTask(interrupted, 't1', { clock, random: () => 0, until: 'terminal' }))).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('rejects with the signal’s reason when aborted while sleeping', async () => {
    const clock = createSteppedClock();
    const controller = new AbortController();
    const waiting = waitForTask(scripted(['TASK_STATE_WORKING']), 't1', { clock, random: () => 0.5, signal: controller.signal });
    await clock.whenSleeping(1);
    controller.abort(new Error('user left'));
    await expect(waiting).rejects.toThrow('user left');
    expect(clock.pending).toBe(0);
  });
});
