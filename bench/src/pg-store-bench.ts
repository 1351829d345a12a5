/**
 * @taskwire/postgres alone, in this process, on a PostgreSQL of its own
 * (core-bench style, no HTTP): commits per second (32 writers; each task
 * created with its first event, then completed with a second), then
 * ListTasks latency once the table holds N tasks (default 100,000) of one
 * owner: the first page (50, with totalSize) unfiltered, by contextId, by
 * status, and a page deep in the cursor order.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-store-bench.ts [N] [writers]
 */
import type { Task, TaskQuery } from '@taskwire/core';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { startBenchCluster } from './pg-cluster.js';

const N = Number(process.argv[2] ?? 100_000);
const WRITERS = Number(process.argv[3] ?? 32);
const LIST_CALLS = 200;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const task = (i: number, state: Task['status']['state']): Task => ({
  id: `task-${String(i).padStart(7, '0')}`,
  contextId: `ctx-${i % 100}`,
  status: { state, timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() },
  history: [{ messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `echo hello ${i}` }] }],
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const cluster = await startBenchCluster();
try {
  const connectionString = cluster.url;
  await migrate({ connectionString });
  const store = await createPostgresTaskStore({ connectionString });

  // Commits: each task is created with its first event, and 9 in 10 are then completed with a second.
  let next = 0;
  let commits = 0;
  const pg0 = cluster.cpuSeconds();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < N) {
        const i = next++;
        const working = task(i, 'TASK_STATE_WORKING');
        await store.commit({ task: working, expectedVersion: 0, owner: 'alice', events: [{ task: working }] });
        commits++;
        if (i % 10 === 0) continue;
        const done = task(i, 'TASK_STATE_COMPLETED');
        await store.commit({ task: done, expectedVersion: 1, owner: 'alice', events: [{ statusUpdate: { taskId: done.id, contextId: done.contextId, status: done.status } }] });
        commits++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pgCpu = cluster.cpuSeconds() - pg0;
  console.log(`\n@taskwire/postgres, ${fmt(N)} tasks, ${WRITERS} writers, pool of 10, PostgreSQL 15 on this machine (node ${process.version})\n`);
  console.log('| commits | commits/s | node CPU µs/commit | PostgreSQL CPU µs/commit |');
  console.log('| ---: | ---: | ---: | ---: |');
  console.log(`| ${fmt(commits)} | ${fmt(commits / seconds)} | ${fmt((cpu.user + cpu.system) / commits)} | ${fmt((pgCpu * 1e6) / commits)} |`);

  await store.pool.query('VACUUM ANALYZE taskwire.tasks');
  let deepToken = '';
  for (let page = 0, token: string | undefined; page < 100; page++) {
    const answer = await store.list({ owner: 'alice', pageToken: token, historyLength: 0 });
    token = answer.nextPageToken || undefined;
    deepToken = answer.nextPageToken;
  }
  const cases: [string, TaskQuery][] = [
    ['first page, no filter', { owner: 'alice' }],
    ['first page, contextId (1% match)', { owner: 'alice', contextId: 'ctx-7' }],
    ['first page, status working (10% match)', { owner: 'alice', status: 'TASK_STATE_WORKING' }],
    ['page 101 (after 5,000 tasks), no filter', { owner: 'alice', pageToken: deepToken }],
  ];
  console.log(`\nListTasks at ${fmt(N)} tasks (pageSize 50, totalSize counted every call; ${LIST_CALLS} calls each, one at a time)\n`);
  console.log('| query | totalSize | p50 ms | p99 ms |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, query] of cases) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < LIST_CALLS; i++) {
      const t0 = performance.now();
      total = (await store.list(query)).totalSize;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${fmt(total)} | ${fmt(percentile(times, 50), 2)} | ${fmt(percentile(times, 99), 2)} |`);
  }
  await store.close();
} finally {
  await cluster.stop();
}
