/** How a watched stream ended: it ran out, it threw, or its consumer stopped it early. */
export type StreamEnd = 'completed' | 'failed' | 'closed';

/**
 * `events` as an iterable that calls `onEvent` for every item and `onEnd`
 * exactly once when the stream ends, however it ends (`error` when it
 * threw). Stopping it (`return()`) works before the first `next()` too.
 */
export function watchStream<T>(events: AsyncIterable<T>, onEvent: (item: T) => void, onEnd: (end: StreamEnd, error?: unknown) => void): AsyncIterableIterator<T> {
  const inner = events[Symbol.asyncIterator]();
  let ended = false;
  const end = (how: StreamEnd, error?: unknown) => {
    if (ended) return;
    ended = true;
    onEnd(how, error);
  };
  const done = { done: true as const, value: undefined };
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => iterator,
    next: async () => {
      let item: IteratorResult<T>;
      try {
        item = await inner.next();
      } catch (error) {
        end('failed', error);
        throw error;
      }
      if (item.done) end('completed');
      else onEvent(item.value);
      return item;
    },
    return: async () => {
      try {
        await inner.return?.();
      } finally {
        end('closed');
      }
      return done;
    },
  };
  return iterator;
}
