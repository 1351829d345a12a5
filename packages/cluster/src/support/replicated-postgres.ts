import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OwnPostgres } from './own-postgres.js';

const run = promisify(execFile);
const PGBIN = process.env.PGBIN ?? '/usr/lib/postgresql/15/bin';

/** Runs a shell command as the postgres user when running as root (the clusters' owner). */
async function asPostgres(command: string): Promise<string> {
  const { stdout } = process.getuid?.() === 0 ? await run('su', ['postgres', '-s', '/bin/sh', '-c', command]) : await run('sh', ['-c', command]);
  return stdout;
}

/** The processes whose parent is `pid` (from /proc: no `ps` needed; its `children` list when the kernel has one). */
async function childrenOf(pid: number): Promise<number[]> {
  const listed = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => undefined);
  if (listed !== undefined) return listed.split(' ').filter((s) => s !== '').map(Number);
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fourth field, after the command in parentheses (which may hold spaces).
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** A free TCP port of 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Two PostgreSQL 15 servers: a primary and a hot standby streaming from it (pg_basebackup). */
export interface ReplicatedPair {
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  readonly primaryPort: number;
  readonly standbyPort: number;
  /** Kills the primary's postmaster and its processes with SIGKILL (a crash, no shutdown checkpoint, no backend left); resolves when they were killed (`Date.now()`), once its port no longer answers. */
  killPrimary(): Promise<number>;
  /**
   * Starts the killed primary again at its address, as it was (un-demoted:
   * a primary still, on its old timeline), with `settings` added
   * (`-c name=value ...`); resolves once it serves.
   */
  restartOldPrimary(settings?: string): Promise<void>;
  /** `pg_ctl promote -w`: the standby leaves recovery and takes writes. */
  promote(): Promise<void>;
  /** Runs `sql` on the server at `port` with psql; resolves its output (unaligned, tuples only). */
  psql(port: number, sql: string): Promise<string>;
  /** Stops both and removes their files. */
  destroy(): Promise<void>;
}

/**
 * Starts a primary (scripts/start-postgres.sh) and a hot standby made with
 * `pg_basebackup -R`, on free ports of 127.0.0.1. With `synchronous`, the
 * primary waits for the standby's flush before a commit returns
 * (`synchronous_standby_names = '*'`). Resolves once the standby streams.
 */
export async function replicatedPair(options: { readonly synchronous: boolean }): Promise<ReplicatedPair> {
  const primary = OwnPostgres.start();
  const psql = (port: number, sql: string) => asPostgres(`'${PGBIN}/psql' -h 127.0.0.1 -p ${port} -U postgres -Atc "${sql}"`);
  const primaryPort = Number(new URL(primary.url).port);
  const standbyDir = await mkdtemp(join(tmpdir(), 'taskwire-standby-'));
  let standbyPort = 0;
  try {
    if (process.getuid?.() === 0) await run('chown', ['postgres', standbyDir]);
    await asPostgres(`'${PGBIN}/pg_basebackup' -h 127.0.0.1 -p ${primaryPort} -U postgres -D '${standbyDir}/data' -R -X stream -c fast`);
    standbyPort = await freePort();
    const settings = `-p ${standbyPort} -k '${standbyDir}' -c listen_addresses=127.0.0.1 -c hot_standby=on -c max_connections=300 -c cluster_name=standby`;
    await asPostgres(`'${PGBIN}/pg_ctl' -D '${standbyDir}/data' -l '${standbyDir}/log' -w -t 60 start -o "${settings}"`);
    if (options.synchronous) {
      await psql(primaryPort, "ALTER SYSTEM SET synchronous_standby_names = '*'");
      await psql(primaryPort, 'SELECT pg_reload_conf()');
    }
    // Streaming (and, synchronous, counted as the sync standby) before the test starts.
    for (let i = 0; ; i++) {
      const state = (await psql(primaryPort, 'SELECT sync_state FROM pg_stat_replication')).trim();
      if (state === (options.synchronous ? 'sync' : 'async')) break;
      if (i > 200) throw new Error(`the standby never streamed (sync_state "${state}")`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await asPostgres(`'${PGBIN}/pg_ctl' -D '${standbyDir}/data' -m immediate -w stop`).catch(() => undefined);
    await rm(standbyDir, { recursive: true, force: true });
    primary.stop();
    throw error;
  }
  const primaryData = primary.dataDir;
  return {
    primaryUrl: primary.url,
    standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
    primaryPort,
    standbyPort,
    async killPrimary() {
      const pid = Number((await readFile(join(primaryData, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
      // The postmaster and every process it started, at once: a crash of the machine, no backend left to answer.
      const children = await childrenOf(pid);
      for (const child of [pid, ...children]) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      const killedAt = Date.now();
      for (let i = 0; i < 200; i++) {
        const alive = await asPostgres(`'${PGBIN}/pg_isready' -h 127.0.0.1 -p ${primaryPort}`).then(() => true, () => false);
        if (!alive) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return killedAt;
    },
    psql,
    async restartOldPrimary(settings = '') {
      const options = `-p ${primaryPort} -k '${primaryData}' -c listen_addresses=127.0.0.1 -c max_connections=300 ${settings}`;
      // Its killed processes may hold its shared memory a moment longer: tried again until they are gone.
      for (let attempt = 0; ; attempt++) {
        try {
          return void (await asPostgres(`'${PGBIN}/pg_ctl' -D '${primaryData}/data' -l '${primaryData}/log' -w -t 60 start -o "${options}"`));
        } catch (error) {
          if (attempt >= 20) throw new Error(`${String(error)}\n${(await readFile(join(primaryData, 'log'), 'utf8')).slice(-2000)}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    promote: async () => void (await asPostgres(`'${PGBIN}/pg_ctl' -D '${standbyDir}/data' -w -t 60 promote`)),
    async destroy() {
      await asPostgres(`'${PGBIN}/pg_ctl' -D '${standbyDir}/data' -m immediate -w stop`).catch(() => undefined);
      await rm(standbyDir, { recursive: true, force: true });
      primary.stop();
    },
  };
}
