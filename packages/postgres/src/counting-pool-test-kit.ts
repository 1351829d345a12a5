import pg from 'pg';

/**
 * A pool whose clients count their queries: each `client.query` is one
 * round trip to the server (a statement with Sync; a named statement's
 * first use sends Parse with it, in the same trip).
 */
export function countingPool(url: string): { readonly pool: pg.Pool; trips(): number; texts(): string[]; reset(): void } {
  const seen: string[] = [];
  class CountingClient extends pg.Client {
    override query(...args: unknown[]): never {
      const first = args[0] as string | { text: string };
      seen.push(typeof first === 'string' ? first : first.text);
      return (super.query as (...a: unknown[]) => never)(...args);
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 4, Client: CountingClient });
  return { pool, trips: () => seen.length, texts: () => [...seen], reset: () => void seen.splice(0) };
}
