import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '@taskwire/postgres';
import { PgBouncer } from '@taskwire/postgres/testing';
import pg from 'pg';
import { startBenchCluster, type BenchCluster } from './pg-cluster.js';
import { JSON_RPC_PATH, ROUND_TRIPS_PATH } from './pg-servers.js';
import { cpuSecondsOf, startServerProcess, type ServerProcess } from './server-process.js';

const SERVERS = fileURLToPath(new URL('./pg-servers.ts', import.meta.url));

/** Applies @a2a-js/sdk's own migrations to the database at `url` with its `a2a-db` command; throws when it fails. */
export function migratePeer(url: string): void {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk')), 'cli', 'a2a_db.js');
  const result = spawnSync(process.execPath, [cli, 'upgrade', '--url', url], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`a2a-db upgrade failed: ${result.stderr}${result.stdout}`);
}

/** How the benchmark's servers reach PostgreSQL. */
export interface BenchDatabaseOptions {
  /**
   * Through a PgBouncer of the benchmark's own in transaction mode
   * (`poolSize` server connections per database): the database servers'
   * pools go through it, Taskwire's with unnamed statements and its
   * sessions (LISTEN, locks) on the direct URL.
   */
  readonly pooler?: { readonly poolSize: number };
}

/**
 * Starts a PostgreSQL cluster of the benchmark's own, makes its databases
 * (`bench_ours` migrated by @taskwire/postgres, `bench_peer` by
 * @a2a-js/sdk) and runs `fn` with a function that starts
 * `pg-servers.ts <kind>` in its own process on the right one (none for
 * `ours-memory`), and the pooler's CPU seconds so far (0 without one);
 * then stops every server started, the pooler and the cluster.
 */
export async function withBenchDatabases(
  fn: (start: (kind: string) => Promise<ServerProcess>, cluster: BenchCluster, poolerCpuSeconds: () => number) => Promise<void>,
  options: BenchDatabaseOptions = {},
): Promise<void> {
  const cluster = await startBenchCluster();
  const started: ServerProcess[] = [];
  let bouncer: PgBouncer | undefined;
  try {
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
    for (const name of ['bench_ours', 'bench_peer']) await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    await migrate({ connectionString: cluster.database('bench_ours') });
    migratePeer(cluster.database('bench_peer'));
    if (options.pooler) bouncer = await PgBouncer.start(cluster.url, options.pooler.poolSize);
    const pooled = (database: string) => Object.assign(new URL(bouncer!.url), { pathname: `/${database}` }).toString();
    await fn(
      async (kind) => {
        const database = kind === 'ours-memory' ? undefined : kind === 'peer-pg' ? 'bench_peer' : 'bench_ours';
        const env: Record<string, string> | undefined = !database
          ? undefined
          : bouncer
            ? { BENCH_DATABASE_URL: pooled(database), BENCH_DIRECT_DATABASE_URL: cluster.database(database) }
            : { BENCH_DATABASE_URL: cluster.database(database) };
        const server = await startServerProcess(SERVERS, kind, (port) => `http://127.0.0.1:${port}${JSON_RPC_PATH}`, env);
        started.push(server);
        return server;
      },
      cluster,
      () => (bouncer ? cpuSecondsOf(bouncer.pid) : 0),
    );
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await bouncer?.stop();
    await cluster.stop();
  }
}

/** The database round trips a `pg-servers.ts` server made so far (NaN for `ours-memory`, which makes none). */
export async function roundTrips(server: ServerProcess): Promise<number> {
  if (server.kind === 'ours-memory') return Number.NaN;
  return Number(await (await fetch(server.url.replace(JSON_RPC_PATH, ROUND_TRIPS_PATH))).text());
}
