import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The commands of the packages, run from the clone as the READMEs and the
// messages say: `npm run taskwire -- ...` and `npm run taskwire-postgres --
// ...` (scripts/taskwire.mjs) run the built commands when their build is
// fresh, and otherwise run them from their TypeScript sources (building
// nothing; `taskwire inspect` and `taskwire mcp` build what they load).
const root = join(import.meta.dirname, '..');
const npmRun = (args: string[]) => spawnSync('npm', ['run', '--silent', ...args], { cwd: root, encoding: 'utf8' });

describe('the commands from the clone', () => {
  it('npm run taskwire -- --help runs the taskwire CLI', () => {
    const r = npmRun(['taskwire', '--', '--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: taskwire <command>/);
  });

  it('npm run taskwire-postgres -- ... runs the taskwire-postgres command, with its exit codes', () => {
    const help = npmRun(['taskwire-postgres', '--', '--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: taskwire-postgres <command>/);
    const refused = npmRun(['taskwire-postgres', '--', 'status', '--url', 'postgres://nobody@127.0.0.1:1/none']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/taskwire-postgres status .* failed: The task database is unreachable/);
  }, 30_000);
});
