import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPTS = fileURLToPath(new URL('../../../scripts/', import.meta.url));
const PGBIN = process.env.PGBIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL cluster of a test's own, which it may stop and start again (scripts/start-postgres.sh). */
export interface ThrowawayCluster {
  readonly url: string;
  /** Stops the server at once (`pg_ctl stop -m immediate`: connections drop as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

/** Runs `pg_ctl` as the postgres user (the cluster's owner) when running as root. */
async function pgCtl(args: string): Promise<void> {
  const command = `'${PGBIN}/pg_ctl' ${args}`;
  if (process.getuid?.() === 0) await run('su', ['postgres', '-s', '/bin/sh', '-c', command]);
  else await run('sh', ['-c', command]);
}

/** Starts a new cluster with scripts/start-postgres.sh (its own env file, so it never touches another one). */
export async function throwawayCluster(): Promise<ThrowawayCluster> {
  const envFile = join(tmpdir(), `taskwire-pg-test-${process.pid}-${Date.now()}.env`);
  const env = { ...process.env, TASKWIRE_PG_ENV: envFile };
  const { stdout } = await run('bash', [join(SCRIPTS, 'start-postgres.sh')], { env });
  const url = stdout.trim();
  const data = /TASKWIRE_PG_DATA=(.*)/.exec(await readFile(envFile, 'utf8'))![1]!;
  const port = new URL(url).port;
  const options = `-p ${port} -k '${data}' -c listen_addresses=127.0.0.1`;
  return {
    url,
    stop: () => pgCtl(`-D '${data}/data' -m immediate -w stop`),
    start: () => pgCtl(`-D '${data}/data' -l '${data}/log' -w -t 60 start -o "${options}"`),
    destroy: async () => void (await run('bash', [join(SCRIPTS, 'stop-postgres.sh')], { env })),
  };
}
