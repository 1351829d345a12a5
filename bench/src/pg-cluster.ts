import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type pg from 'pg';

const run = promisify(execFile);
const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));

/** A PostgreSQL cluster of the benchmark's own, with the CPU time of all its processes. */
export interface BenchCluster {
  /** The server's URL, database `postgres`; {@link database} names another. */
  readonly url: string;
  database(name: string): string;
  /** CPU seconds (user + system) of the postmaster and every process it started, the ones that exited included. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** utime, stime, cutime, cstime and the parent pid of a process, from /proc (clock ticks of 1/100 s). */
function stat(pid: string): { ppid: string; own: number; reaped: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: fields[1]!, own: (Number(fields[11]) + Number(fields[12])) / 100, reaped: (Number(fields[13]) + Number(fields[14])) / 100 };
  } catch {
    return undefined;
  }
}

/**
 * Starts a throwaway cluster with scripts/start-postgres.sh (its own env
 * file, so nothing else uses it: its CPU time is the benchmark's alone).
 * `settings` are extra server settings (`-c name=value` each), e.g. to
 * preload pg_stat_statements.
 */
export async function startBenchCluster(settings: Readonly<Record<string, string>> = {}): Promise<BenchCluster> {
  const options = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  const env = { ...process.env, TASKWIRE_PG_ENV: join(tmpdir(), `taskwire-bench-pg-${process.pid}.env`), TASKWIRE_PG_OPTIONS: options };
  const url = (await run('bash', [join(SCRIPTS, 'start-postgres.sh')], { env })).stdout.trim();
  const data = /TASKWIRE_PG_DATA=(.*)/.exec(readFileSync(env.TASKWIRE_PG_ENV, 'utf8'))![1]!;
  const postmaster = readFileSync(join(data, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  return {
    url,
    database: (name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString(),
    cpuSeconds() {
      const main = stat(postmaster);
      let total = main ? main.own + main.reaped : Number.NaN;
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid) || pid === postmaster) continue;
        const child = stat(pid);
        if (child?.ppid === postmaster) total += child.own;
      }
      return total;
    },
    stop: async () => void (await run('bash', [join(SCRIPTS, 'stop-postgres.sh')], { env })),
  };
}

/**
 * Stores `count` ended (completed) tasks of about 1 KB each in the
 * `taskwire` schema, then vacuums and analyzes the table: a deployment that
 * has been up a while. Does nothing for a count of 0.
 */
export async function storeEndedTasks(db: pg.Pool, count: number): Promise<void> {
  if (count <= 0) return;
  await db.query(
    `INSERT INTO taskwire.tasks (id, owner, context_id, state, status_key, version, last_sequence, task)
     SELECT 'ended-' || g, '', 'ended-' || g, 'TASK_STATE_COMPLETED', lpad(g::text, 24, '0'), 2, 3, '{"id":"ended-' || g || '","pad":"' || repeat('x', 1000) || '"}'
     FROM generate_series(1, $1::integer) g`,
    [count],
  );
  await db.query('VACUUM ANALYZE taskwire.tasks');
}
