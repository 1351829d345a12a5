/**
 * Where a streaming replica's CPU goes: starts a PostgreSQL of its own with
 * pg_stat_statements (and auto_explain, off unless asked), one server of
 * `pg-servers.ts` (`ours-pg-cluster` unless `--kind` says otherwise) run
 * with `node --cpu-prof` (the profile is written to `--profile-dir` when
 * the server exits), keeps `--streams` `slow N 0` streams open (N: `--chunks`, default 50), and after a
 * 3 s warm-up measures a `--seconds` window: node and PostgreSQL CPU per
 * event, then each statement's calls, rows, buffer hits per row and time.
 * With `--perf`, the server runs with `--perf-basic-prof` instead and Linux
 * `perf` samples it through the window: node's CPU by category
 * (perf-categories.ts), time on a CPU only.
 *
 *   tsx src/pg-stream-profile.ts [--kind ours-pg-cluster] [--streams 50] [--chunks 50] [--seconds 10]
 *     [--profile-dir /tmp] [--explain-ms N --keep-log FILE]   (plans of statements slower than N ms, copied to FILE)
 *     [--stored N]   (N ended tasks of about 1 KB stored before the run, as a deployment that has been up a while holds)
 *     [--perf]       (perf's samples go to --profile-dir too)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrate } from '@taskwire/postgres';
import pg from 'pg';
import { requestBody } from './http-load.js';
import { startBenchCluster, storeEndedTasks } from './pg-cluster.js';
import { JSON_RPC_PATH } from './pg-servers.js';
import { recordCategories } from './perf-categories.js';
import { startServerProcess } from './server-process.js';
import { stream } from './sse-stream.js';

const { values: args } = parseArgs({
  options: {
    kind: { type: 'string', default: 'ours-pg-cluster' },
    streams: { type: 'string', default: '50' },
    chunks: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '10' },
    'profile-dir': { type: 'string', default: tmpdir() },
    'explain-ms': { type: 'string', default: '-1' },
    'keep-log': { type: 'string' },
    stored: { type: 'string', default: '0' },
    perf: { type: 'boolean', default: false },
  },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cluster = await startBenchCluster({
  shared_preload_libraries: 'pg_stat_statements,auto_explain',
  'pg_stat_statements.track_planning': 'on',
  'auto_explain.log_min_duration': args['explain-ms'],
  'auto_explain.log_analyze': 'on',
  'auto_explain.log_buffers': 'on',
});
try {
  const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
  await admin.query('CREATE DATABASE bench_ours');
  await admin.end();
  const url = cluster.database('bench_ours');
  await migrate({ connectionString: url });
  const db = new pg.Pool({ connectionString: url, max: 1 });
  // Stopping the cluster ends this pool's session: not an error here.
  db.on('error', () => undefined);
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await storeEndedTasks(db, Number(args.stored));
  // The server inherits this process's node flags (tsx, the source condition): the profiler's too.
  const dir = args['profile-dir'];
  // perf names JavaScript frames from the map --perf-basic-prof writes; V8's own log of it goes beside the samples.
  if (args.perf) process.execArgv.push('--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(dir, 'taskwire-v8.log')}`);
  else process.execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  const server = await startServerProcess(fileURLToPath(new URL('./pg-servers.ts', import.meta.url)), args.kind, (port) => `http://127.0.0.1:${port}${JSON_RPC_PATH}`, {
    BENCH_DATABASE_URL: url,
  });
  const body = requestBody('SendStreamingMessage', `slow ${Number(args.chunks)} 0`);
  const cut = new AbortController();
  let events = 0;
  const loops = Promise.all(
    Array.from({ length: Number(args.streams) }, async () => {
      while (!cut.signal.aborted) await stream(server.url, body, { events: 0, completed: false, delays: [] }, cut.signal, () => (events++, true)).catch(() => undefined);
    }),
  );
  await sleep(3000);
  await db.query('SELECT pg_stat_statements_reset()');
  const [e0, c0, p0] = [events, server.cpuSeconds(), cluster.cpuSeconds()];
  const categories = args.perf
    ? await recordCategories(server.pid!, Number(args.seconds), join(dir, `taskwire-perf-${server.pid}.data`))
    : void (await sleep(Number(args.seconds) * 1000));
  const [e1, c1, p1] = [events, server.cpuSeconds(), cluster.cpuSeconds()];
  const n = e1 - e0;
  const nodeUs = ((c1 - c0) * 1e6) / n;
  console.log(`${args.kind}: ${n} events, node ${nodeUs.toFixed(0)} µs/event, PostgreSQL ${(((p1 - p0) * 1e6) / n).toFixed(0)} µs/event`);
  if (categories) {
    console.log(`  node CPU by category (perf, ${categories.samples} samples; sending on sockets in the kernel: ${(100 * categories.socketSends).toFixed(1)}%):`);
    for (const { category, share } of categories.shares) console.log(`    ${(100 * share).toFixed(1).padStart(5)}%  ${(share * nodeUs).toFixed(0).padStart(4)} µs/event  ${category}`);
  }
  const tables = await db.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_dead_tup FROM pg_stat_user_tables WHERE relname IN ('tasks', 'task_events')`);
  for (const row of tables.rows) console.log(`  table ${JSON.stringify(row)}`);
  const { rows } = await db.query<{ calls: string; rows: string; hit: string; exec_ms: string; plan_ms: string; query: string }>(
    `SELECT calls, rows, shared_blks_hit AS hit, round(total_exec_time::numeric) AS exec_ms, round(total_plan_time::numeric) AS plan_ms,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 300) AS query
     FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 10`,
  );
  for (const row of rows) {
    const perRow = (Number(row.hit) / Math.max(1, Number(row.rows))).toFixed(1);
    console.log(`  ${(Number(row.calls) / n).toFixed(3)} calls/event, ${row.rows} rows, ${perRow} buffer hits/row, exec ${row.exec_ms} ms, plan ${row.plan_ms} ms: ${row.query}`);
  }
  cut.abort();
  await server.stop();
  await loops;
  await db.end();
} finally {
  if (args['keep-log']) {
    const env = readFileSync(join(tmpdir(), `taskwire-bench-pg-${process.pid}.env`), 'utf8');
    execFileSync('cp', [join(/TASKWIRE_PG_DATA=(.*)/.exec(env)![1]!, 'log'), args['keep-log']]);
  }
  await cluster.stop();
}
