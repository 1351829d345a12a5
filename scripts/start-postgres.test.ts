import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/start-postgres.sh keeps one state file per cluster
// (TASKWIRE_PG_ENV): a second start with a file whose cluster still runs
// refuses instead of orphaning it; stop-postgres.sh stops that cluster and
// removes the file. Real clusters (Debian's postgresql-15, as in CI).
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'taskwire-pg-state-'));
const state = join(dir, 'pg.env');
const env = { ...process.env, TASKWIRE_PG_ENV: state };
const script = (name: string) => spawnSync('bash', [join(root, 'scripts', name)], { env, encoding: 'utf8' });
afterAll(() => {
  script('stop-postgres.sh');
  rmSync(dir, { recursive: true, force: true });
});

describe('scripts/start-postgres.sh', () => {
  it('refuses a second start with the state file of a running cluster, saying what to do; stop-postgres.sh stops that one', () => {
    const first = script('start-postgres.sh');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trim()).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const second = script('start-postgres.sh');
    expect(second.status).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain(`A cluster started with the state file ${state} is still running (${first.stdout.trim()})`);
    expect(second.stderr).toContain('TASKWIRE_PG_ENV=/tmp/pg-NAME.env');
    const stopped = script('stop-postgres.sh');
    expect(stopped.status, stopped.stderr).toBe(0);
    expect(existsSync(state)).toBe(false);
  }, 90_000);
});
