import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Applies @a2a-js/sdk's own migrations to the database at `url` with its `a2a-db` command; throws when it fails. */
export function migratePeer(url: string): void {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk')), 'cli', 'a2a_db.js');
  const result = spawnSync(process.execPath, [cli, 'upgrade', '--url', url], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`a2a-db upgrade failed: ${result.stderr}${result.stdout}`);
}
