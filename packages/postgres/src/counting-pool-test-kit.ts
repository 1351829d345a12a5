import pg from 'pg';

/** The characters of the values in `result`'s rows (texts, and each element of a text array). */
function charsOf(result: unknown): number {
  const results = Array.isArray(result) ? result : [result];
  let chars = 0;
  for (const one of results as ({ rows?: unknown[] } | undefined)[]) {
    for (const row of one?.rows ?? []) {
      for (const value of Object.values(row as object)) {
        for (const item of Array.isArray(value) ? value : [value]) chars += item === null || item === undefined ? 0 : String(item).length;
      }
    }
  }
  return chars;
}

/**
 * A pool whose clients count their queries: each `client.query` is one
 * round trip to the server (a statement with Sync; a named statement's
 * first use sends Parse with it, in the same trip). `fetched()` is the
 * characters of every value the answers carried (row values as text).
 */
export function countingPool(url: string): { readonly pool: pg.Pool; trips(): number; texts(): string[]; fetched(): number; reset(): void } {
  const seen: string[] = [];
  let fetched = 0;
  class CountingClient extends pg.Client {
    override query(...args: unknown[]): never {
      const first = args[0] as string | { text: string };
      seen.push(typeof first === 'string' ? first : first.text);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        // The pool passes a callback: count what it is handed.
        args[last] = (error: unknown, result: unknown) => {
          fetched += charsOf(result);
          (callback as (e: unknown, r: unknown) => void)(error, result);
        };
      }
      const answer = (super.query as (...a: unknown[]) => unknown)(...args);
      if (answer instanceof Promise) return answer.then((result: unknown) => ((fetched += charsOf(result)), result)) as never;
      return answer as never;
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 4, Client: CountingClient });
  return {
    pool,
    trips: () => seen.length,
    texts: () => [...seen],
    fetched: () => fetched,
    reset: () => {
      seen.splice(0);
      fetched = 0;
    },
  };
}
