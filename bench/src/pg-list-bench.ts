/**
 * ListTasks and GetTask as the task table grows, on a PostgreSQL of its own
 * (the store in this process, no HTTP). 200 tasks of one owner are made
 * through the store (created working, 9 in 10 then completed), then cloned
 * in SQL (generate_series) with fresh ids, status timestamps, states and
 * contexts (100 contexts, 1 in 10 working) up to each size in turn. At each
 * size: p50/p99 of ListTasks (pageSize 50, totalSize on every call) for the
 * first page, a page deep in the cursor walk (half way through the table),
 * one contextId, one state, contextId with state, and GetTask.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-list-bench.ts [sizes=10000,200000] [calls=200]
 */
import type { Task, TaskQuery } from '@taskwire/core';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { startBenchCluster } from './pg-cluster.js';

const SIZES = (process.argv[2] ?? '10000,200000').split(',').map(Number);
const CALLS = Number(process.argv[3] ?? 200);
const SEED = 200;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const task = (i: number, state: Task['status']['state']): Task => ({
  id: `seed-${i}`,
  contextId: `ctx-${i % 100}`,
  status: { state, timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() },
  history: [{ messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `echo hello ${i}` }] }],
});

const cluster = await startBenchCluster();
try {
  await migrate({ connectionString: cluster.url });
  const store = await createPostgresTaskStore({ connectionString: cluster.url });
  for (let i = 0; i < SEED; i++) {
    await store.commit({ task: task(i, 'TASK_STATE_WORKING'), expectedVersion: 0, owner: 'alice', events: [] });
    if (i % 10) await store.commit({ task: task(i, 'TASK_STATE_COMPLETED'), expectedVersion: 1, owner: 'alice', events: [] });
  }
  // Clone g takes seed g % 200's row (its JSON with id and timestamp replaced), a second after the seeds and each other clone.
  const clone = `
    INSERT INTO taskwire.tasks (id, owner, context_id, state, status_key, version, last_sequence, task)
    SELECT 'clone-' || g, s.owner, 'ctx-' || (g % 100),
      CASE WHEN g % 10 = 0 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_COMPLETED' END,
      to_char(timestamp '2026-01-02' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS') || '000000',
      s.version, s.last_sequence,
      replace(replace(s.task, s.id, 'clone-' || g), to_char(timestamp '2026-01-01' + (g % ${SEED}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        to_char(timestamp '2026-01-02' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM generate_series($1::int, $2::int) g JOIN taskwire.tasks s ON s.id = 'seed-' || (g % ${SEED})`;
  let filled = SEED;
  console.log(`\n@taskwire/postgres ListTasks and GetTask by table size, one owner, PostgreSQL 15 on this machine (node ${process.version}; ${CALLS} calls each, one at a time)\n`);
  console.log('| tasks | query | totalSize | p50 ms | p99 ms |');
  console.log('| ---: | --- | ---: | ---: | ---: |');
  for (const size of SIZES) {
    for (let from = filled; from < size; from += 100_000) await store.pool.query(clone, [from, Math.min(size, from + 100_000) - 1]);
    filled = Math.max(filled, size);
    await store.pool.query('VACUUM ANALYZE taskwire.tasks');
    let deep = '';
    for (let seen = 0, token: string | undefined; seen < size / 2; ) {
      const page = await store.list({ owner: 'alice', pageSize: 100, pageToken: token, historyLength: 0 });
      seen += page.tasks.length;
      token = deep = page.nextPageToken;
      if (!token) break;
    }
    const cases: [string, () => Promise<number>][] = [];
    const list = (name: string, query: TaskQuery) => cases.push([name, async () => (await store.list(query)).totalSize]);
    list('ListTasks first page', { owner: 'alice' });
    list('ListTasks page half way through a cursor walk', { owner: 'alice', pageToken: deep });
    list('ListTasks contextId (1%)', { owner: 'alice', contextId: 'ctx-7' });
    list('ListTasks state working (10%)', { owner: 'alice', status: 'TASK_STATE_WORKING' });
    list('ListTasks contextId + state', { owner: 'alice', contextId: 'ctx-7', status: 'TASK_STATE_COMPLETED' });
    cases.push(['GetTask', async () => ((await store.get(`clone-${Math.floor(size / 3)}`)) ? 1 : 0)]);
    for (const [name, call] of cases) {
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        total = await call();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`| ${fmt(size)} | ${name} | ${name === 'GetTask' ? '' : fmt(total)} | ${fmt(percentile(times, 50), 2)} | ${fmt(percentile(times, 99), 2)} |`);
    }
  }
  await store.close();
} finally {
  await cluster.stop();
}
