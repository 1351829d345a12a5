import { createMemoryTaskStore } from './memory-store.js';
import type { TaskStore } from './task-store.js';

/** A store whose reads can be made to race (see {@link racingReads}). */
export interface RacingReads {
  readonly store: TaskStore;
  /**
   * The next `count` task reads (`get`) wait for each other: none resolves
   * before the last of them has arrived, and then all of them read what the
   * store holds at that moment. So `count` callers all see one state of a
   * task before any of them can change it.
   */
  arm(count: number): void;
}

/**
 * A task store over `inner` (default: a fresh memory store) for tests of
 * concurrent writers: {@link RacingReads.arm} makes its next reads meet
 * before any of them returns, so a race that timing alone would decide
 * rarely happens every time. Every other call goes straight to `inner`.
 */
export function racingReads(inner: TaskStore = createMemoryTaskStore()): RacingReads {
  let left = 0;
  let meet: Promise<void> = Promise.resolve();
  let arrived = (): void => undefined;
  const get = async (id: string) => {
    if (left > 0) {
      const met = meet;
      if (--left === 0) arrived();
      await met;
    }
    return inner.get(id);
  };
  // Every other member is the inner store's own (bound to it).
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === 'get') return get;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store,
    arm(count) {
      left = count;
      meet = new Promise<void>((resolve) => (arrived = resolve));
    },
  };
}
