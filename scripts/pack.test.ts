import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enginesAdmit, publishablePackages, publishedNodeRange, tarballName, withTaskwireDependencies } from './publishable.mjs';

// `npm run pack` (scripts/pack.mjs), as the root README tells a user to run
// it before the packages are on npm: the tarballs of the packages asked for
// and of the Taskwire packages they need in one folder, and the `npm install`
// lines that install exactly them into an empty project (real npm), where
// they load. On a supported Node, neither that install nor the workspace's
// own warns about engines for a package nobody asked for.
const root = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'taskwire-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const packages = publishablePackages(root);
const major = Number(process.versions.node.split('.')[0]);
const ENGINE_WARNING = /EBADENGINE|Unsupported engine/i;

/** Runs `npm run pack -- --out <out> ...names`; returns its `npm install` lines. */
function pack(out: string, names: string[]): string[] {
  const packed = spawnSync('npm', ['run', '--silent', 'pack', '--', '--out', out, ...names], { cwd: root, encoding: 'utf8' });
  expect(packed.status, packed.stderr).toBe(0);
  return packed.stdout.split('\n').filter((line) => line.startsWith('npm install '));
}

/** The line that installs the tarballs of `names` from `out`. */
const lineOf = (out: string, names: string[]) =>
  `npm install ${names.map((name) => packages.find((p) => p.name === name)!).map((p) => join(out, tarballName(p.name, p.version))).join(' ')}`;

/** Runs `line` (plus `extra` arguments) in a new empty app; returns the app and npm's output. */
function installInEmptyApp(name: string, line: string, extra = ''): { app: string; output: string } {
  const app = join(scratch, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
  const install = spawnSync('sh', ['-c', `${line} ${extra} --no-audit --no-fund --ignore-scripts`], { cwd: app, encoding: 'utf8' });
  expect(install.status, install.stderr).toBe(0);
  return { app, output: `${install.stdout}${install.stderr}` };
}

/** Imports each of `names` in `app` and expects exports from each. */
function expectLoads(app: string, names: string[]) {
  const load = spawnSync(process.execPath, ['--input-type=module', '-e', `for (const name of ${JSON.stringify(names)}) console.log(name, Object.keys(await import(name)).length > 0);`], { cwd: app, encoding: 'utf8' });
  expect(load.stderr).toBe('');
  expect(load.stdout.trim().split('\n')).toEqual(names.map((name) => `${name} true`));
}

describe('npm run pack', () => {
  it('with package names, packs those and their Taskwire dependencies and prints the one line that installs exactly them: no engine warning', () => {
    const out = join(scratch, 'http');
    const lines = pack(out, ['core', 'server-http', 'client']);
    const expected = ['@taskwire/client', '@taskwire/core', '@taskwire/server-http'];
    expect(readdirSync(out).sort()).toEqual(expected.map((name) => tarballName(name, packages.find((p) => p.name === name)!.version)).sort());
    expect(lines).toEqual([lineOf(out, expected)]);
    const { app, output } = installInEmptyApp('app-http', lines[0]!);
    expect(output).not.toMatch(ENGINE_WARNING);
    expectLoads(app, expected);
  }, 300_000);

  it("installs the AI SDK README's line: @taskwire/ai-sdk brings @taskwire/client, which it needs", () => {
    const out = join(scratch, 'ai');
    const lines = pack(out, ['@taskwire/ai-sdk', '@taskwire/core', '@taskwire/server-http']);
    expect(lines).toEqual([lineOf(out, ['@taskwire/ai-sdk', '@taskwire/client', '@taskwire/core', '@taskwire/server-http'])]);
    // As the ai-sdk README says: `npm install @taskwire/ai-sdk @taskwire/core @taskwire/server-http ai zod`.
    const { app } = installInEmptyApp('app-ai', lines[0]!, 'ai zod');
    const loadable = ['@taskwire/core', '@taskwire/server-http', '@taskwire/client'];
    expectLoads(app, enginesAdmit(publishedNodeRange(packages.find((p) => p.name === '@taskwire/ai-sdk')!.pkg), major) ? ['@taskwire/ai-sdk', ...loadable] : loadable);
  }, 300_000);

  it('without names, packs every package and prints one line per package (it and the Taskwire packages it needs), then the line for all', () => {
    const out = join(scratch, 'all');
    const lines = pack(out, []);
    expect(readdirSync(out).sort()).toEqual(packages.map((p) => tarballName(p.name, p.version)).sort());
    expect(lines).toEqual([
      ...packages.map((p) => lineOf(out, withTaskwireDependencies(packages, [p.name]).map((q: { name: string }) => q.name))),
      lineOf(out, packages.map((p) => p.name)),
    ]);
    expect(lines.find((line) => line.includes('taskwire-ai-sdk-'))).toContain('taskwire-client-');
    const { app } = installInEmptyApp('app-all', lines.at(-1)!);
    // Each package loads on this Node when its published engines admit it (the AI SDK's needs Node 22).
    expectLoads(app, packages.filter((p) => enginesAdmit(publishedNodeRange(p.pkg), major)).map((p) => p.name));
    // The commands the READMEs tell users to run from the installed packages (`npx @taskwire/mcp <url>` runs taskwire-mcp).
    const mcp = spawnSync(join(app, 'node_modules', '.bin', 'taskwire-mcp'), ['--help'], { cwd: app, encoding: 'utf8' });
    expect(mcp.status, mcp.stderr).toBe(0);
    expect(mcp.stdout).toContain('taskwire-mcp <agent-url>');
  }, 300_000);

  it('refuses a name that is no publishable package, naming the ones there are', () => {
    const packed = spawnSync('npm', ['run', '--silent', 'pack', '--', '--out', join(scratch, 'none'), 'cor'], { cwd: root, encoding: 'utf8' });
    expect(packed.status).toBe(2);
    expect(packed.stderr).toMatch(/no publishable package cor; there are: .*core/);
  });
});

describe('the workspace install', () => {
  it('on this Node (the workspace supports 20 to 26) prints no engine warning', () => {
    // A copy of what the install reads (the root's files, every workspace
    // package.json, the packages' bin launchers), installed from pnpm's store.
    const copy = join(scratch, 'workspace');
    const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .stdout.split('\n')
      .filter((f) => f && (!f.includes('/') || f.endsWith('/package.json') || /^packages\/[^/]+\/bin\//.test(f)));
    for (const file of files) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(root, file), join(copy, file));
    }
    const install = spawnSync('npx', ['-y', 'pnpm@10.34.9', 'install', '--frozen-lockfile', '--offline', '--ignore-scripts'], { cwd: copy, encoding: 'utf8' });
    expect(install.status, `${install.stdout}${install.stderr}`).toBe(0);
    expect(`${install.stdout}${install.stderr}`).not.toMatch(ENGINE_WARNING);
  }, 300_000);
});
