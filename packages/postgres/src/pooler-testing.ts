import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian's `pgbouncer` package puts the program (`bash scripts/apt-install.sh pgbouncer /usr/sbin/pgbouncer pgbouncer`). */
export const PGBOUNCER = process.env.PGBOUNCER ?? '/usr/sbin/pgbouncer';

/** A free TCP port of 127.0.0.1 (free when asked: the caller binds it at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A PgBouncer of a test's own in transaction mode (Debian's defaults
 * otherwise: no `ignore_startup_parameters`, so a client that sends session
 * settings at connection time is refused), in front of the PostgreSQL of
 * `databaseUrl`, on a free port of 127.0.0.1, trusting the URL's user.
 * Server connections per database and user are few (`poolSize`), so
 * transactions of different clients share them, as in production.
 */
export class PgBouncer {
  private constructor(
    /** The URL of the database through the pooler (same user and database as the direct one). */
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    /** What PgBouncer logged so far (for failure messages). */
    readonly log: string[],
  ) {}

  /**
   * Starts PgBouncer and resolves once it listens. It refuses to run as
   * root, so under root it runs as `nobody` (through `setpriv`). Rejects
   * with what it logged when it exits first, and says how to install it
   * when it is missing.
   */
  static async start(databaseUrl: string, poolSize = 3): Promise<PgBouncer> {
    if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: install it with \`bash scripts/apt-install.sh pgbouncer /usr/sbin/pgbouncer pgbouncer\` (npm test does)`);
    const direct = new URL(databaseUrl);
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'taskwire-pgbouncer-'));
    const user = decodeURIComponent(direct.username || 'postgres');
    writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${direct.hostname} port=${direct.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `admin_users = ${user}`,
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 500',
        '',
      ].join('\n'),
    );
    chmodSync(dir, 0o755);
    const root = process.getuid?.() === 0;
    const child = root
      ? spawn('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', PGBOUNCER, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const log: string[] = [];
    const pooled = new URL(databaseUrl);
    pooled.hostname = '127.0.0.1';
    pooled.port = String(port);
    const bouncer = new PgBouncer(pooled.toString(), child, dir, log);
    await new Promise<void>((resolve, reject) => {
      const onLine = (chunk: Buffer) => {
        log.push(...chunk.toString().split('\n').filter(Boolean));
        if (log.some((line) => line.includes('process up'))) resolve();
      };
      child.stdout!.on('data', onLine);
      child.stderr!.on('data', onLine);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`pgbouncer exited (${code}) before it listened:\n${log.join('\n')}`)));
    }).catch((error: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    });
    return bouncer;
  }

  /** The process id of PgBouncer (for its CPU time in /proc). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The `application_name` of every client connected through the pooler now (its admin console's `SHOW CLIENTS`). */
  async clients(): Promise<string[]> {
    const rows = await this.admin<{ application_name: string }>('SHOW CLIENTS');
    return rows.map((row) => row.application_name);
  }

  /**
   * Runs `command` on PgBouncer's admin console (`SHOW CLIENTS`, `DISABLE db`,
   * `ENABLE db`, ...) and resolves with the rows it answers.
   */
  async admin<Row extends pg.QueryResultRow = pg.QueryResultRow>(command: string): Promise<Row[]> {
    const admin = new URL(this.url);
    admin.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      return (await client.query<Row>(command)).rows;
    } finally {
      await client.end();
    }
  }

  /** Stops PgBouncer (its client connections end) and removes its files. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGINT');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
