import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/build-lock.mjs, which `npm run pack`, the packages' prepack, the
// tests' build and `npm run taskwire` hold while they build or pack: real
// processes on a scratch workspace, and the real `npm pack` for prepack's
// message when dist/ lost files it should have.
const lockModule = join(import.meta.dirname, 'build-lock.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'taskwire-build-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A node process that takes the lock of `root` as `what`, appends to `log`, and holds it until `release` exists. */
function holder(root: string, what: string, log: string, release: string) {
  const code = `
    const { withBuildLock } = await import(${JSON.stringify(lockModule)});
    const { appendFileSync, existsSync } = await import('node:fs');
    withBuildLock(${JSON.stringify(root)}, ${JSON.stringify(what)}, () => {
      appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(what)} + ' in\\n');
      while (!existsSync(${JSON.stringify(release)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(what)} + ' out\\n');
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { exited, stderr: () => stderr };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('the build lock', () => {
  it('a second build waits for the first, saying whom it waits for, and runs once the first is done', async () => {
    const root = join(scratch, 'two');
    mkdirSync(root);
    const log = join(root, 'log');
    writeFileSync(log, '');
    const first = holder(root, 'first build', log, join(root, 'release-first'));
    await until(() => spawnSync('cat', [log], { encoding: 'utf8' }).stdout.includes('first build in'));
    const second = holder(root, 'npm run pack', log, join(root, 'release-second'));
    const logged = () => spawnSync('cat', [log], { encoding: 'utf8' }).stdout;
    await until(() => second.stderr().includes('Waiting for another build') || logged().includes('npm run pack in'));
    expect(logged(), 'the second build ran while the first held the lock').toBe('first build in\n');
    expect(second.stderr()).toMatch(/Waiting for another build of the packages to finish \(first build, pid \d+; lock .*taskwire-build\.lock\)/);
    writeFileSync(join(root, 'release-second'), '');
    writeFileSync(join(root, 'release-first'), '');
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(spawnSync('cat', [log], { encoding: 'utf8' }).stdout).toBe('first build in\nfirst build out\nnpm run pack in\nnpm run pack out\n');
    expect(existsSync(join(root, 'node_modules', '.cache', 'taskwire-build.lock'))).toBe(false);
  }, 60_000);

  it('takes over a lock whose holder is gone', async () => {
    const root = join(scratch, 'stale');
    const lock = join(root, 'node_modules', '.cache', 'taskwire-build.lock');
    mkdirSync(lock, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(lock, 'holder.json'), JSON.stringify({ pid: Number(dead), what: 'a build that crashed' }));
    const log = join(root, 'log');
    writeFileSync(join(root, 'release'), '');
    const taker = holder(root, 'next build', log, join(root, 'release'));
    expect(await taker.exited).toBe(0);
    expect(taker.stderr()).toBe('');
  }, 60_000);

  it("prepack names a dist/ that lost files since its build, not the build, as the cause", () => {
    const dir = join(scratch, 'emptied');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'index.ts'), 'export const x = 1;\n');
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'index.js'), 'export const x = 1;\n');
    utimesSync(join(dir, 'src', 'index.ts'), new Date(0), new Date(0));
    const pkg = {
      name: '@fixture/emptied',
      version: '1.0.0',
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      scripts: { build: 'node -e "process.exit(9)"', prepack: `node ${JSON.stringify(join(import.meta.dirname, 'prepack.mjs'))}` },
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    const packed = spawnSync('npm', ['pack', '--dry-run'], { cwd: dir, encoding: 'utf8' });
    expect(packed.status).not.toBe(0);
    expect(packed.stderr).toContain('@fixture/emptied: refusing to pack: missing from dist/: dist/index.d.ts, though dist/ is newer than src/');
  }, 60_000);
});
