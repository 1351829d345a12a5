/**
 * Serialises work per key: `run(key, fn)` starts `fn` only after every
 * earlier `run` with the same key has settled. Keys with no pending work hold
 * no memory.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` exclusively for `key`; resolves or rejects with its outcome. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Number of keys with work queued or running (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
