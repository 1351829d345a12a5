import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, systemClock } from './clock.js';

/** Resolves once a real timer of `ms` has fired (timers of one process fire in due order). */
const timerFired = (ms: number) => new Promise<'timer'>((resolve) => setTimeout(() => resolve('timer'), ms));

describe('systemClock', () => {
  it('sleeps the time asked for', async () => {
    const order: string[] = [];
    await Promise.all([systemClock.sleep(30).then(() => order.push('sleep 30')), timerFired(5).then(() => order.push('timer 5'))]);
    expect(order).toEqual(['timer 5', 'sleep 30']);
  });

  it('does not cut short a sleep longer than one timer can wait (a far Retry-After), nor an endless one; an abort ends them', async () => {
    for (const ms of [MAX_TIMER_MS + 1, 50 * 86_400_000, Number.POSITIVE_INFINITY]) {
      const stop = new AbortController();
      const sleep = systemClock.sleep(ms, stop.signal).then(() => 'woke');
      // A timer given more than MAX_TIMER_MS would fire after about 1 ms, well before this one.
      expect(await Promise.race([sleep, timerFired(40)])).toBe('timer');
      stop.abort(new Error('stopped'));
      await expect(sleep).rejects.toThrow('stopped');
    }
  });
});
