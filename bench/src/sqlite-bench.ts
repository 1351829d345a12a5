/**
 * Issue 49's benchmark: the reference agent in process (TaskService, no
 * transport) on the SQLite store (node:sqlite, synchronous FULL) beside the
 * file store (fsync on) and, with TASKWIRE_TEST_DATABASE_URL, PostgreSQL;
 * stores alternate round by round. Reports, per store: blocking `echo`
 * sends per second and CPU µs per send (this process; PostgreSQL's own CPU
 * is not counted), `slow N 0` streams' CPU µs per event; then ListTasks on
 * SQLite at growing task counts (the first page, the next page, a context
 * filter, a state filter): median ms per call, to show it stays flat.
 *
 *   .cache/node22/package/bin/node --import tsx --conditions=@taskwire/source bench/src/sqlite-bench.ts \
 *     [--sends 5000] [--concurrency 64] [--streams 8] [--events 50] [--rounds 3] [--list 10000,100000,1000000]
 *
 * Needs Node 22.5+ (node:sqlite).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TaskService, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { referenceAgent } from '@taskwire/reference-agent';
import { createSqliteTaskStore } from '@taskwire/sqlite';
import { nodeSqlite } from '@taskwire/sqlite/node';

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '64' },
    streams: { type: 'string', default: '8' },
    events: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    list: { type: 'string', default: '10000,100000,1000000' },
  },
});
const SENDS = Number(values.sends);
const CONCURRENCY = Number(values.concurrency);
const STREAMS = Number(values.streams);
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);
const LIST_SIZES = values.list!.split(',').filter(Boolean).map(Number);
const databaseUrl = process.env.TASKWIRE_TEST_DATABASE_URL;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return used.user + used.system;
};
const message = (text: string, i: number) => ({ message: { messageId: `m-${i}-${Math.random()}`, role: 'ROLE_USER' as const, parts: [{ text }] } });

/** Blocking echoes: sends/s and CPU µs per send. */
async function echoes(service: TaskService): Promise<{ rate: number; cpuUs: number }> {
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < SENDS) {
      const result = await service.unary('SendMessage', message(`echo hello`, next++));
      if (!('task' in result) || result.task.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { rate: SENDS / ((performance.now() - started) / 1000), cpuUs: cpuSince(cpu) / SENDS };
}

/** `STREAMS` concurrent `slow EVENTS 0` streams: CPU µs per event received. */
async function streams(service: TaskService): Promise<number> {
  const cpu = process.cpuUsage();
  let events = 0;
  await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      for await (const _event of await service.stream('SendStreamingMessage', message(`slow ${EVENTS} 0`, i))) events++;
    }),
  );
  return cpuSince(cpu) / events;
}

interface Store {
  readonly name: string;
  open(dir: string): Promise<TaskStore>;
}
const stores: Store[] = [
  { name: 'file (fsync on)', open: (dir) => FileTaskStore.open(dir, { fsync: true }) },
  { name: 'SQLite (node:sqlite, FULL)', open: (dir) => createSqliteTaskStore({ driver: nodeSqlite(join(dir, 'tasks.db')) }) },
];
if (databaseUrl) {
  let n = 0;
  stores.push({
    name: 'PostgreSQL (one process)',
    open: async () => {
      const schema = `tw_sqlite_bench_${process.pid}_${n++}`;
      await migrate({ connectionString: databaseUrl, schema });
      return createPostgresTaskStore({ connectionString: databaseUrl, schema });
    },
  });
}

const results = new Map<string, { rate: number[]; send: number[]; event: number[] }>(stores.map((s) => [s.name, { rate: [], send: [], event: [] }]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const store of round % 2 === 0 ? [...stores].reverse() : stores) {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-bench-'));
    const opened = await store.open(dir);
    const service = new TaskService({ store: opened, agent: referenceAgent });
    try {
      const echo = await echoes(service);
      const perEvent = await streams(service);
      const row = results.get(store.name)!;
      row.rate.push(echo.rate);
      row.send.push(echo.cpuUs);
      row.event.push(perEvent);
    } finally {
      await service.close();
      await opened.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
console.log(`\nIn process, reference agent, node ${process.version}; medians of ${ROUNDS} alternating rounds`);
console.log(`echo: ${SENDS} blocking sends, ${CONCURRENCY} in flight; streams: ${STREAMS} x slow ${EVENTS} 0\n`);
console.log('| store | echo sends/s | CPU µs per send | CPU µs per streamed event |');
console.log('| --- | ---: | ---: | ---: |');
for (const [name, r] of results) console.log(`| ${name} | ${Math.round(median(r.rate)).toLocaleString()} | ${median(r.send).toFixed(1)} | ${median(r.event).toFixed(1)} |`);

// ListTasks as the tasks grow: filled in one transaction per step, straight in SQL (one owner, 100 contexts, 4 states).
const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-list-'));
const driver = nodeSqlite(join(dir, 'tasks.db'), { synchronous: 'NORMAL' });
const store = await createSqliteTaskStore({ driver });
try {
  console.log('\n| tasks | first page (50) | next page | contextId filter | status filter | totalSize |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  let filled = 0;
  for (const size of LIST_SIZES) {
    await driver.batch([
      {
        sql: `WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2)
          INSERT INTO taskwire_tasks (id, owner, context_id, state, status_key, version, last_sequence, task, updated_at)
          SELECT printf('task-%08d', i), 'alice', printf('ctx-%02d', i % 100),
            CASE i % 4 WHEN 0 THEN 'TASK_STATE_COMPLETED' WHEN 1 THEN 'TASK_STATE_FAILED' WHEN 2 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_INPUT_REQUIRED' END,
            strftime('%Y-%m-%dT%H:%M:%S', 1767225600 + i, 'unixepoch') || '.000000000', 1, 0,
            json_object('id', printf('task-%08d', i), 'contextId', printf('ctx-%02d', i % 100), 'status', json_object('state',
              CASE i % 4 WHEN 0 THEN 'TASK_STATE_COMPLETED' WHEN 1 THEN 'TASK_STATE_FAILED' WHEN 2 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_INPUT_REQUIRED' END,
              'timestamp', strftime('%Y-%m-%dT%H:%M:%SZ', 1767225600 + i, 'unixepoch'))), 0
          FROM n`,
        params: [filled, size],
      },
    ]);
    filled = size;
    const time = async (query: Parameters<TaskStore['list']>[0]) => {
      const samples: number[] = [];
      let total = 0;
      for (let i = 0; i < 21; i++) {
        const started = performance.now();
        total = (await store.list(query)).totalSize;
        samples.push(performance.now() - started);
      }
      return { ms: median(samples), total };
    };
    const first = await time({ owner: 'alice' });
    const token = (await store.list({ owner: 'alice' })).nextPageToken;
    const next = await time({ owner: 'alice', pageToken: token });
    const context = await time({ owner: 'alice', contextId: 'ctx-07' });
    const state = await time({ owner: 'alice', status: 'TASK_STATE_WORKING' });
    const ms = (t: { ms: number }) => `${t.ms.toFixed(2)} ms`;
    console.log(`| ${size.toLocaleString()} | ${ms(first)} | ${ms(next)} | ${ms(context)} | ${ms(state)} | ${first.total.toLocaleString()} |`);
  }
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
