// Step 4 of docs/production.md run as written: the page's nginx line
// (check, reload or start) run against a configuration of the test's own
// (the page's block with the test's replicas and ports, files in a
// directory of its own), so that the nginx it starts is a daemon as on a
// server, and stopped at the end.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReservedPorts } from '../../packages/cluster/src/support/nginx.js';
import { ensureNginx } from '../../packages/cluster/src/support/nginx.js';
import { runbookNginx, type Names } from './names.js';

/** The page's nginx, configured for the test. */
export interface RunbookNginx {
  /** A line of the page with each `nginx` command pointed at the test's configuration (`-p`, `-e`, `-c`). */
  command(line: string): string;
  /** What nginx logged. */
  log(): string;
  /** Stops the daemon the page's line started, if it did; resolves once it is gone. */
  stop(): Promise<void>;
}

/**
 * Writes the page's block with the test's names into a whole configuration
 * that runs as a daemon (pid and logs in its own directory), and releases
 * the reserved `ports` for it to take. nginx is installed first when missing.
 */
export async function runbookNginxDaemon(markdown: string, names: Names, ports: ReservedPorts): Promise<RunbookNginx> {
  ensureNginx();
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-runbook-nginx-'));
  const conf = join(dir, 'nginx.conf');
  const config = runbookNginx(markdown, names, ports, dir);
  const foreground = 'daemon off;\nmaster_process off;\n';
  if (!config.startsWith(foreground)) throw new Error(`the nginx test configuration no longer starts with ${JSON.stringify(foreground)}`);
  // A daemon with a master process, as a packaged nginx runs: the one that reloads (workers as this user, for the files in dir).
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  await writeFile(conf, config.replace(foreground, `daemon on;\nmaster_process on;\n${user}`));
  await ports.release();
  const own = `nginx -p ${dir} -e ${join(dir, 'error.log')} -c ${conf}`;
  const pidFile = join(dir, 'nginx.pid');
  return {
    command(line) {
      const out = line.replace(/(^|[(&|;]\s*)nginx\b/g, (_, before: string) => `${before}${own}`);
      if (out === line) throw new Error(`the runbook's nginx line runs no nginx: ${line}`);
      return out;
    },
    log: () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''),
    async stop() {
      if (!existsSync(pidFile)) return;
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (!alive()) return;
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 500 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      if (alive()) process.kill(pid, 'SIGKILL');
    },
  };
}
