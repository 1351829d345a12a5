/**
 * GetTask and ListTasks as the task table grows, Taskwire beside
 * @a2a-js/sdk 1.3.0 on one PostgreSQL of the benchmark's own (the servers
 * of pg-servers.ts, `ours-pg` and `peer-pg`, each in its own process and
 * database, called over JSON-RPC one call at a time). 200 tasks are made
 * through each service, then cloned in SQL (see pg-list-fill.ts) up to
 * each size in turn. At each size, `calls` calls of each case, p50 and p99
 * (ms, measured at the client): GetTask of a random clone; ListTasks
 * (pageSize 50, `totalSize` on every call) of one contextId (10 tasks),
 * the first page with no filter, a page half way through a cursor walk,
 * and one state (input-required, 10%). Then Taskwire's whole cursor walk
 * (pageSize 100, historyLength 0): pages, and ms per page.
 *
 * With `--upgrade`, once the largest size is measured: the count migration
 * on a copy of Taskwire's table at the schema version before it, while a
 * writer (the previous release's SQL) commits in a loop: the migration's
 * time, the slowest commit meanwhile, and whether the counts came out exact.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/pg-list-bench.ts [sizes=10000,200000,1000000] [calls=100] [--upgrade]
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { REQUEST_HEADERS, type ServerProcess } from './http-load.js';
import { cloneUpTo, fillThroughService, middleToken, numberSeeds, SEEDS } from './pg-list-fill.js';
import { withBenchDatabases } from './pg-peer.js';
import { upgradeProbe } from './pg-list-upgrade.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const SIZES = (args[0] ?? '10000,200000,1000000').split(',').map(Number);
const CALLS = Number(args[1] ?? 100);
const UPGRADE = process.argv.includes('--upgrade');
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

/** One JSON-RPC call to `server`; resolves its result, throws its error. */
async function call(server: ServerProcess, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(server.url, { method: 'POST', headers: REQUEST_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const reply = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (reply.error !== undefined || reply.result === undefined) throw new Error(`${server.kind} ${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

interface Case {
  readonly name: string;
  readonly method: 'GetTask' | 'ListTasks';
  params(i: number): Record<string, unknown>;
}

async function main(): Promise<void> {
  await withBenchDatabases(async (start, cluster) => {
    const servers = [await start('ours-pg'), await start('peer-pg')];
    const pools = new Map(servers.map((s) => [s.kind, new pg.Pool({ connectionString: cluster.database(s.kind === 'peer-pg' ? 'bench_peer' : 'bench_ours'), max: 2 })]));
    for (const server of servers) {
      await fillThroughService(server);
      await numberSeeds(pools.get(server.kind)!, server.kind);
    }
    console.log(`\nGetTask and ListTasks by table size, one owner, over JSON-RPC, one call at a time (${CALLS} calls each; node ${process.version}; PostgreSQL 15 of the benchmark's own; load average at start ${load()})\n`);
    console.log('| tasks | call | server | totalSize | p50 ms | p99 ms |');
    console.log('| ---: | --- | --- | ---: | ---: | ---: |');
    const walks: string[] = [];
    for (const size of SIZES) {
      for (const server of servers) await cloneUpTo(pools.get(server.kind)!, server.kind, size);
      const deep = new Map<string, string>();
      for (const server of servers) deep.set(server.kind, await middleToken(pools.get(server.kind)!, server.kind, size));
      const clone = () => `clone-${SEEDS + Math.floor(Math.random() * (size - SEEDS))}`;
      const cases: Case[] = [
        { name: 'GetTask', method: 'GetTask', params: () => ({ id: clone() }) },
        { name: 'ListTasks one contextId', method: 'ListTasks', params: () => ({ pageSize: 50, contextId: `ctx-${Math.floor(size / 20)}` }) },
        { name: 'ListTasks first page, no filter', method: 'ListTasks', params: () => ({ pageSize: 50 }) },
        { name: 'ListTasks page half way through a cursor walk', method: 'ListTasks', params: () => ({ pageSize: 50 }) },
        { name: 'ListTasks state input-required (10%)', method: 'ListTasks', params: () => ({ pageSize: 50, status: 'TASK_STATE_INPUT_REQUIRED' }) },
      ];
      for (const c of cases) {
        for (const server of servers) {
          const params = (i: number) => ({ ...c.params(i), ...(c.name.includes('half way') && { pageToken: deep.get(server.kind) }) });
          await call(server, c.method, params(0)); // warm
          const times: number[] = [];
          let total: unknown = '';
          for (let i = 0; i < CALLS; i++) {
            const t0 = performance.now();
            const result = await call(server, c.method, params(i));
            times.push(performance.now() - t0);
            if (c.method === 'ListTasks') {
              if (!Array.isArray(result.tasks) || result.tasks.length === 0) throw new Error(`${server.kind} ${c.name}: an empty page`);
              total = result.totalSize;
            }
          }
          times.sort((a, b) => a - b);
          console.log(`| ${fmt(size)} | ${c.name} | ${server.kind === 'peer-pg' ? '@a2a-js/sdk' : 'Taskwire'} | ${total === '' ? '' : fmt(Number(total))} | ${fmt(percentile(times, 50), 2)} | ${fmt(percentile(times, 99), 2)} |`);
        }
      }
      // Taskwire's whole cursor walk at this size (the peer's would count every matching row on each of its pages).
      const t0 = performance.now();
      let pages = 0;
      for (let token = ''; ; ) {
        const page = await call(servers[0]!, 'ListTasks', { pageSize: 100, historyLength: 0, ...(token && { pageToken: token }) });
        pages++;
        token = String(page.nextPageToken ?? '');
        if (!token) break;
      }
      const ms = performance.now() - t0;
      walks.push(`| ${fmt(size)} | ${fmt(pages)} | ${fmt(ms / 1000, 1)} | ${fmt(ms / pages, 2)} |`);
    }
    console.log(`\nTaskwire's whole cursor walk (pageSize 100, historyLength 0)\n\n| tasks | pages | seconds | ms per page |\n| ---: | ---: | ---: | ---: |\n${walks.join('\n')}`);
    if (UPGRADE) console.log(`\n${await upgradeProbe(pools.get('ours-pg')!, cluster.database('bench_ours'))}`);
    console.log(`\nload average at the end: ${load()}`);
    await Promise.all([...pools.values()].map((pool) => pool.end()));
  });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
