import { MAX_TIMER_MS } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { createPostgresCoordinator } from './cluster/coordinator.js';
import { describePostgres, type TestDatabase } from './database-test-kit.js';
import { createPostgresTaskStore } from './task-store.js';
import { timerInterval } from './timer-interval.js';

/** Values no timer option takes: node would run a timer of more than MAX_TIMER_MS after 1 ms. */
const REFUSED = [0, 9, -5, Number.NaN, MAX_TIMER_MS + 1, Number.POSITIVE_INFINITY];
const refusal = (name: string, value: number) => new RangeError(`${name} must be a number of milliseconds from 10 to 2147483647 (got ${value})`);

describe('timerInterval', () => {
  it('gives the fallback for undefined, takes 10 ms to 2^31 - 1 ms, and refuses anything else naming the option', () => {
    expect(timerInterval(undefined, 1_234, 'x')).toBe(1_234);
    expect([10, 2_000, MAX_TIMER_MS].map((value) => timerInterval(value, 1, 'x'))).toEqual([10, 2_000, 2 ** 31 - 1]);
    for (const value of REFUSED) expect(() => timerInterval(value, 1, 'leaseTtlMs')).toThrow(refusal('leaseTtlMs', value));
  });
});

describePostgres('timer options of the store and the coordinator', (db: TestDatabase) => {
  /** Nothing listens there: an option checked after connecting would fail with a connection error instead. */
  const NOWHERE = 'postgres://nobody@127.0.0.1:1/none';

  it('the store refuses a contract refresh, sweep or compaction interval a timer cannot take, before connecting', async () => {
    for (const value of REFUSED) {
      await expect(createPostgresTaskStore({ connectionString: NOWHERE, contractRefreshMs: value })).rejects.toThrow(refusal('contractRefreshMs', value));
    }
    for (const value of REFUSED.filter((v) => v !== Number.POSITIVE_INFINITY)) {
      await expect(createPostgresTaskStore({ connectionString: NOWHERE, retention: { sweepIntervalMs: value } })).rejects.toThrow(refusal('retention.sweepIntervalMs', value));
    }
    await expect(createPostgresTaskStore({ connectionString: NOWHERE, countCompactionIntervalMs: MAX_TIMER_MS + 1 })).rejects.toThrow(
      new RangeError('countCompactionIntervalMs must be 0 or more, at most 2147483647 or Infinity (got 2147483648)'),
    );
  });

  it('the coordinator refuses a lease, ping or catch-up interval a timer cannot take', async () => {
    const schema = await db.schema('tw_timers');
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    try {
      for (const name of ['leaseTtlMs', 'pingIntervalMs', 'pingTimeoutMs', 'catchUpIntervalMs'] as const) {
        await expect(createPostgresCoordinator({ store, [name]: MAX_TIMER_MS + 1 })).rejects.toThrow(refusal(name, MAX_TIMER_MS + 1));
      }
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });
});
