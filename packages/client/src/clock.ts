import type { Clock } from '@taskwire/core';

export type { Clock } from '@taskwire/core';
export { systemClock } from '@taskwire/core';

/** A random source returning numbers in [0, 1), like `Math.random`. */
export type Random = () => number;

interface Sleeper {
  readonly due: number;
  readonly ms: number;
  readonly resolve: () => void;
}

/**
 * A clock that only moves when told to. `sleep` records the requested delay
 * (see {@link SteppedClock.sleeps}) and resolves once {@link SteppedClock.advance}
 * or {@link SteppedClock.runNext} moves time past its due time.
 */
export interface SteppedClock extends Clock {
  /** Every delay passed to `sleep`, in call order. */
  readonly sleeps: readonly number[];
  /** How many sleeps are waiting. */
  readonly pending: number;
  /** Moves time forward by `ms`, waking every sleeper that is then due (in due order). */
  advance(ms: number): Promise<void>;
  /**
   * Waits until someone sleeps (now or later), then jumps to the earliest due
   * time and wakes that one sleeper only. Resolves with the delay it asked for.
   */
  runNext(): Promise<number>;
  /** Resolves when at least `count` sleeps are pending (now or later). */
  whenSleeping(count?: number): Promise<void>;
}

/** Lets already-resolved promise chains run before the caller goes on. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/**
 * Creates a {@link SteppedClock} starting at `start` ms. Use it in tests of
 * code that waits: drive time with `runNext()` / `advance()` instead of
 * sleeping, and assert on `sleeps`.
 */
export function createSteppedClock(start = 0): SteppedClock {
  let time = start;
  const sleepers: Sleeper[] = [];
  const sleeps: number[] = [];
  const watchers: { count: number; resolve: () => void }[] = [];

  const notify = () => {
    for (const w of [...watchers]) {
      if (sleepers.length >= w.count) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const wake = async (upTo: number) => {
    sleepers.sort((a, b) => a.due - b.due);
    while (sleepers.length > 0 && sleepers[0]!.due <= upTo) {
      const next = sleepers.shift()!;
      time = Math.max(time, next.due);
      next.resolve();
      await settle();
      sleepers.sort((a, b) => a.due - b.due);
    }
    time = Math.max(time, upTo);
  };
  const clock: SteppedClock = {
    get sleeps() {
      return sleeps;
    },
    get pending() {
      return sleepers.length;
    },
    now: () => time,
    sleep(ms, signal) {
      sleeps.push(ms);
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const sleeper: Sleeper = {
          due: time + Math.max(0, ms),
          ms,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const at = sleepers.indexOf(sleeper);
          if (at >= 0) sleepers.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        notify();
      });
    },
    advance: (ms) => wake(time + ms),
    async runNext() {
      await clock.whenSleeping(1);
      sleepers.sort((a, b) => a.due - b.due);
      const first = sleepers.shift()!;
      time = Math.max(time, first.due);
      first.resolve();
      await settle();
      return first.ms;
    },
    whenSleeping(count = 1) {
      if (sleepers.length >= count) return Promise.resolve();
      return new Promise<void>((resolve) => watchers.push({ count, resolve }));
    },
  };
  return clock;
}
