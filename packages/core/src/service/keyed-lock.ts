/**
 * Serialises work per key: `run(key, fn)` starts `fn` only after every
 * earlier `run` with the same key has settled; when the key is idle it
 * starts `fn` at once, synchronously (so `fn` should be an async function:
 * it must not throw synchronously). Not reentrant: `fn` must not `run` the
 * same key. Keys with no pending work hold no memory.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` exclusively for `key`; resolves or rejects with its outcome. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    // An idle key starts `fn` at once (no hop through a resolved promise); a busy one queues it.
    const result = previous === undefined ? fn() : previous.then(fn, fn);
    const settle = (): void => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    const tail: Promise<void> = result.then(settle, settle);
    this.tails.set(key, tail);
    return result;
  }

  /** Number of keys with work queued or running (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
