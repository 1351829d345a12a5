import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@taskwire/reliability/support/agent-process';

const PGBIN = process.env.PGBIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of a test's own (`scripts/start-postgres.sh` with a
 * state file of its own), for tests that restart the database: the shared
 * test database must stay up for the other suites.
 */
export class OwnPostgres {
  private constructor(
    readonly url: string,
    readonly dataDir: string,
    private readonly envFile: string,
  ) {}

  /** Starts a throwaway server on a free port of 127.0.0.1. */
  static start(): OwnPostgres {
    const envFile = join(tmpdir(), `taskwire-own-pg-${process.pid}-${Date.now()}.env`);
    const url = execFileSync('bash', ['scripts/start-postgres.sh'], { cwd: REPO_ROOT, env: { ...process.env, TASKWIRE_PG_ENV: envFile }, encoding: 'utf8' }).trim();
    const dataDir = /TASKWIRE_PG_DATA=(.*)/.exec(readFileSync(envFile, 'utf8'))![1]!;
    return new OwnPostgres(url, dataDir, envFile);
  }

  /** `pg_ctl restart` in `mode` (`fast`: sessions ended cleanly; `immediate`: a crash and recovery); resolves once it serves again. */
  async restart(mode: 'fast' | 'immediate'): Promise<void> {
    const command = `'${PGBIN}/pg_ctl' -D '${this.dataDir}/data' -l '${this.dataDir}/log' -m ${mode} -w -t 60 restart`;
    if (process.getuid?.() === 0) await promisify(execFile)('su', ['postgres', '-s', '/bin/sh', '-c', command]);
    else await promisify(execFile)('/bin/sh', ['-c', command]);
  }

  /** Stops the server and removes its files. */
  stop(): void {
    execFileSync('bash', ['scripts/stop-postgres.sh'], { cwd: REPO_ROOT, env: { ...process.env, TASKWIRE_PG_ENV: this.envFile }, stdio: 'ignore' });
    rmSync(this.envFile, { force: true });
  }
}
