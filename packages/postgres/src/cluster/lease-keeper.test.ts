import { afterEach, expect, it, vi } from 'vitest';
import { until } from './coordinator-test-kit.js';
import { LeaseKeeper } from './lease-keeper.js';

afterEach(() => vi.restoreAllMocks());

/** Steps the wall clock by `ms` (as NTP or a resumed VM would), for this process. */
function stepWallClock(ms: number): void {
  const real = Date.now.bind(Date);
  vi.spyOn(Date, 'now').mockImplementation(() => real() + ms);
}

it('a wall clock stepped forward gives up no healthy lease', () => {
  const keeper = new LeaseKeeper('me', 60_000, undefined);
  let lost = 0;
  keeper.hold('t', 1, () => lost++);
  stepWallClock(60 * 60_000);
  expect(keeper.giveUpStale()).toBe(0);
  expect(lost).toBe(0);
  expect(keeper.ids()).toEqual(['t']);
});

it('a wall clock stepped back still gives up a lease not renewed for nine tenths of its time', async () => {
  const keeper = new LeaseKeeper('me', 40, undefined);
  let lost = 0;
  keeper.hold('t', 1, () => lost++);
  stepWallClock(-60 * 60_000);
  // Nothing renews it: once 36 ms have passed for real, it is given up (never an hour later).
  await until(() => keeper.giveUpStale() === 1, 'the stale lease to be given up', 5_000);
  expect(lost).toBe(1);
});

it('times leases on the clock it is given', () => {
  let now = 1_000;
  const keeper = new LeaseKeeper('me', 100, undefined, () => now);
  keeper.hold('t', 1, () => undefined);
  now += 89;
  expect(keeper.giveUpStale()).toBe(0);
  now += 1;
  expect(keeper.giveUpStale()).toBe(1);
});
