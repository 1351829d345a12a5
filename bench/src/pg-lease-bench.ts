/**
 * What keeping running tasks alive costs: one replica (this process: a
 * PostgresTaskStore and its PostgresCoordinator, default lease of 15 s,
 * renewed every 5 s, sweeping every second) holds N running tasks (default
 * 2,000; rows of about 860 bytes, as a task with a short history makes)
 * on a PostgreSQL of the benchmark's own, for `seconds` (default 60) twice:
 * before the `lease-heartbeats` contract step (every task row renewed, as a
 * release without heartbeats needs) and after it (the replica's heartbeat
 * row alone). For each: WAL bytes/s (`pg_current_wal_lsn` before and
 * after), task-row updates/s (`pg_stat_user_tables`), and the CPU share of
 * a core of the replica process and of every PostgreSQL process.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/pg-lease-bench.ts [tasks=2000] [seconds=60]
 */
import type { CoordinatorHost } from '@taskwire/core';
import { createPostgresCoordinator, createPostgresTaskStore, migrate, recordContractSteps } from '@taskwire/postgres';
import pg from 'pg';
import { loadavg } from 'node:os';
import { startBenchCluster } from './pg-cluster.js';

const N = Number(process.argv[2] ?? 2_000);
const SECONDS = Number(process.argv[3] ?? 60);
const STEP = 'lease-heartbeats';
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

// pg_stat_statements (planning included) attributes PostgreSQL's time to the statements that spent it.
const cluster = await startBenchCluster({ shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' });
try {
  const connectionString = cluster.url;
  await migrate({ connectionString });
  const admin = new pg.Pool({ connectionString, max: 1 });
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  // As on a schema an earlier release made: renewals rewrite every task row until `contract`.
  await admin.query('DELETE FROM taskwire.taskwire_contract_steps WHERE step = $1', [STEP]);
  const store = await createPostgresTaskStore({ connectionString });
  const coordinator = await createPostgresCoordinator({ store });
  const host: CoordinatorHost = { settleOrphan: async () => undefined };
  coordinator.attach(host);
  const history = JSON.stringify([{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: `summarise ${'lorem ipsum '.repeat(40)}` }] }]);
  await admin.query(
    `INSERT INTO taskwire.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, lease_holder, lease_epoch, lease_expires_at)
     SELECT 'task-' || lpad(i::text, 6, '0'), 'alice', 'ctx-' || (i % 100), 'TASK_STATE_WORKING', '2026-11-29T00:00:00Z', 2, 2,
            json_build_object('id', 'task-' || lpad(i::text, 6, '0'), 'contextId', 'ctx-' || (i % 100), 'status', json_build_object('state', 'TASK_STATE_WORKING'), 'history', $3::json)::text,
            $1, 1, now() + interval '15 seconds'
     FROM generate_series(1, $2::int) AS i`,
    [coordinator.processId, N, history],
  );
  const rowBytes = (await admin.query<{ b: string }>('SELECT avg(pg_column_size(t.*))::int AS b FROM taskwire.tasks t')).rows[0]!.b;
  for (let i = 1; i <= N; i++) coordinator.hold(`task-${String(i).padStart(6, '0')}`, 1, () => console.error(`lost the lease of task ${i}`));

  const statements: { label: string; seconds: number; rows: { query: string; calls: string; ms: string }[] }[] = [];
  const measure = async (label: string) => {
    const wal0 = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
    const updates = async () => Number((await admin.query<{ n: string }>(`SELECT n_tup_upd AS n FROM pg_stat_user_tables WHERE schemaname = 'taskwire' AND relname = 'tasks'`)).rows[0]!.n);
    const upd0 = await updates();
    const pg0 = cluster.cpuSeconds();
    await admin.query('SELECT pg_stat_statements_reset()');
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const pgCpu = cluster.cpuSeconds() - pg0;
    const wal = Number((await admin.query<{ d: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [wal0])).rows[0]!.d);
    const upd = (await updates()) - upd0;
    const share = (s: number) => `${fmt((100 * s) / seconds, 2)}%`;
    statements.push({ label, seconds, rows: (await admin.query<{ query: string; calls: string; ms: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query, calls, (total_exec_time + total_plan_time)::numeric(12, 1) AS ms
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 6`)).rows });
    console.log(`| ${label} | ${fmt(wal / 1024 / seconds, 1)} | ${fmt(upd / seconds, 1)} | ${share((cpu.user + cpu.system) / 1e6)} | ${share(pgCpu)} |`);
  };

  console.log(`\nLease upkeep: one replica holding ${fmt(N)} running tasks (rows of ${rowBytes} B), lease 15 s, ${SECONDS} s per phase (node ${process.version}; PostgreSQL 15 of the benchmark's own; load average at start ${loadavg().map((n) => n.toFixed(2)).join(' ')})\n`);
  console.log('| phase | WAL KiB/s | task-row updates/s | replica CPU (% of a core) | PostgreSQL CPU (% of a core) |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  await measure('before `contract` (every task row renewed)');
  await recordContractSteps({ connectionString });
  // The replica reads the steps again within 10 s; one renewal period later it beats alone.
  while (!store.hasContractStep(STEP)) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await measure('after `contract` (heartbeat row alone)');
  for (const { label, seconds, rows } of statements) {
    console.log(`\nTop statements, ${label} (execution and planning, pg_stat_statements):\n`);
    console.log('| statement | calls/s | ms/s |');
    console.log('| --- | ---: | ---: |');
    for (const r of rows) console.log(`| \`${r.query.replaceAll('|', '\\|')}\` | ${fmt(Number(r.calls) / seconds, 1)} | ${fmt(Number(r.ms) / seconds, 3)} |`);
  }
  await coordinator.close();
  await store.close();
  await admin.end();
} finally {
  await cluster.stop();
}
