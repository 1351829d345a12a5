import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enginesAdmit, publishablePackages, tarballName } from './publishable.mjs';

// `npm run pack` (scripts/pack.mjs), as the root README tells a user to run
// it before the packages are on npm: every publishable package's tarball in
// one folder, and one printed `npm install` line that installs them all into
// an empty project, where they load.
const root = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'taskwire-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run pack', () => {
  it('writes every publishable package to one folder and prints the one npm install line that installs them together', () => {
    const out = join(scratch, 'packed');
    const packed = spawnSync('npm', ['run', '--silent', 'pack', '--', out], { cwd: root, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const packages = publishablePackages(root);
    const expected = packages.map((p) => tarballName(p.name, p.version));
    expect(readdirSync(out).sort()).toEqual([...expected].sort());
    const lines = packed.stdout.split('\n').filter((line) => line.startsWith('npm install '));
    expect(lines).toEqual([`npm install ${expected.map((name) => join(out, name)).join(' ')}`]);

    const app = join(scratch, 'app');
    spawnSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    const install = spawnSync('sh', ['-c', `${lines[0]} --no-audit --no-fund --ignore-scripts`], { cwd: app, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    // Each package loads on this Node when its engines admit it (the AI SDK's needs Node 22).
    const names = packages.filter((p) => enginesAdmit(p.pkg.engines.node, Number(process.versions.node.split('.')[0]))).map((p) => p.name);
    const load = spawnSync(process.execPath, ['--input-type=module', '-e', `for (const name of ${JSON.stringify(names)}) console.log(name, Object.keys(await import(name)).length > 0);`], { cwd: app, encoding: 'utf8' });
    expect(load.stderr).toBe('');
    expect(load.stdout.trim().split('\n')).toEqual(names.map((name) => `${name} true`));
    // The commands the READMEs tell users to run from the installed packages (`npx @taskwire/mcp <url>` runs taskwire-mcp).
    const mcp = spawnSync(join(app, 'node_modules', '.bin', 'taskwire-mcp'), ['--help'], { cwd: app, encoding: 'utf8' });
    expect(mcp.status, mcp.stderr).toBe(0);
    expect(mcp.stdout).toContain('taskwire-mcp <agent-url>');
  }, 180_000);
});
