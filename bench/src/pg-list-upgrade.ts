/**
 * The count migration on a live table, for `pg-list-bench.ts --upgrade`: a
 * copy of Taskwire's tasks in a schema at the version before the counts,
 * migrated while a writer commits as the previous release does (a create,
 * a state change, a delete, each its own transaction) in a loop. Reports
 * how long `migrate()` took (the step, then the backfill), the writer's
 * commits meanwhile (median and slowest: a commit waiting on the
 * migration's lock shows there), and whether ListTasks' `totalSize` then
 * equals the rows for every owner and state.
 */
import { createPostgresTaskStore, migrate, MIGRATIONS } from '@taskwire/postgres';
import type { TaskState } from '@taskwire/core';
import pg from 'pg';

const SCHEMA = 'bench_upgrade';
const S = `"${SCHEMA}"`;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Runs the probe on the database at `url` (whose `taskwire.tasks` is copied; `pool` reaches it); resolves its report, a few Markdown lines. */
export async function upgradeProbe(pool: pg.Pool, url: string): Promise<string> {
  const counts = MIGRATIONS.find((m) => m.name.startsWith('task counts'))!;
  await pool.query(`DROP SCHEMA IF EXISTS ${S} CASCADE`);
  await pool.query(`CREATE SCHEMA ${S}`);
  await pool.query(`CREATE TABLE ${S}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const step of MIGRATIONS.filter((m) => m.version < counts.version)) {
    await pool.query(step.sql(S));
    await pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
  }
  await pool.query(`INSERT INTO ${S}.tasks SELECT * FROM taskwire.tasks`);
  await pool.query(`VACUUM ANALYZE ${S}.tasks`);
  const rows = Number((await pool.query(`SELECT count(*) AS n FROM ${S}.tasks`)).rows[0].n);
  const writer = new pg.Pool({ connectionString: url, max: 1 });
  const latencies: number[] = [];
  let writing = true;
  const writes = (async () => {
    for (let i = 0; writing; i++) {
      for (const [text, values] of [
        [`INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task) VALUES ($1, 'bench', 'ctx', 'TASK_STATE_WORKING', '', 1, 0, '{}')`, [`w-${i}`]],
        [`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED', version = version + 1 WHERE id = $1`, [`w-${i}`]],
        [`DELETE FROM ${S}.tasks WHERE id = $1`, [`w-${i - 1}`]],
      ] as const) {
        const t0 = performance.now();
        await writer.query(text, [...values]);
        latencies.push(performance.now() - t0);
      }
    }
  })();
  // Let the writer run before and after the migration, so what it waited shows against its usual commit.
  while (latencies.length < 300) await new Promise((resolve) => setTimeout(resolve, 10));
  const before = latencies.length;
  const t0 = performance.now();
  await migrate({ connectionString: url, schema: SCHEMA });
  const took = performance.now() - t0;
  const during = latencies.slice(before);
  writing = false;
  await writes;
  await writer.end();
  const store = await createPostgresTaskStore({ connectionString: url, schema: SCHEMA, poolSize: 1 });
  const wrong: string[] = [];
  const truth = await pool.query<{ owner: string; state: TaskState; n: string }>(`SELECT owner, state, count(*) AS n FROM ${S}.tasks GROUP BY owner, state`);
  for (const { owner, state, n } of truth.rows) {
    const { totalSize } = await store.list({ owner, status: state, pageSize: 1 });
    if (totalSize !== Number(n)) wrong.push(`${owner}/${state}: ${totalSize} for ${n} rows`);
  }
  await store.close();
  await pool.query(`DROP SCHEMA ${S} CASCADE`);
  during.sort((a, b) => a - b);
  const median = during[Math.floor(during.length / 2)] ?? NaN;
  return [
    `The count migration on ${fmt(rows)} tasks (migration ${counts.version}, then its backfill) while a writer committed in a loop:`,
    '',
    '| migrate() s | writer commits meanwhile | median commit ms | slowest commit ms | totalSize per owner and state |',
    '| ---: | ---: | ---: | ---: | --- |',
    `| ${fmt(took / 1000, 2)} | ${fmt(during.length)} | ${fmt(median, 2)} | ${fmt(during[during.length - 1] ?? NaN, 1)} | ${wrong.length === 0 ? 'exact' : wrong.join('; ')} |`,
  ].join('\n');
}
