import type { TestDatabase } from '@taskwire/postgres/testing';
import { afterAll, beforeAll } from 'vitest';
import { Cluster } from './cluster.js';

/**
 * Starts a cluster of `size` reference agents on a fresh schema of `db`
 * before the suite's tests (killed after them) and returns a getter for it.
 * `args` are more options for every replica (or a function that gives them
 * when the cluster starts, for values known only then).
 */
export function useCluster(db: TestDatabase, size: number, args: readonly string[] | (() => readonly string[]) = []): () => Cluster {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    const schema = await db.schema('tw_cluster');
    cluster = await Cluster.start({ size, databaseUrl: db.url, schema, args: typeof args === 'function' ? args() : args });
    // Three processes compiling their TypeScript at once on a busy CI machine take a while.
  }, 180_000);
  afterAll(() => cluster?.close());
  return () => {
    if (!cluster) throw new Error('the cluster is not started');
    return cluster;
  };
}
