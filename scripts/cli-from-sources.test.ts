import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../examples/reference-agent/src/serve-all.js';
import { serveAll } from '../examples/reference-agent/src/serve-all.js';

// The first `npm run taskwire` after `npm start` in a fresh clone: no
// package is built yet, and the command must not build any (it runs the CLI
// from its sources, scripts/taskwire.mjs). The clone is a copy of this
// working tree's tracked files (so no dist/ at all) with the installed
// dependencies linked in; the test then asserts that no dist/ appeared.
const root = join(import.meta.dirname, '..');
const clone = mkdtempSync(join(tmpdir(), 'taskwire-fresh-clone-'));
let agent: RunningAgent;

/** The packages' folders of a workspace at `at`. */
const packageDirs = (at: string) =>
  ['packages', 'examples'].flatMap((group) => readdirSync(join(at, group), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(at, group, d.name)));

/** The packages of `clone` that have a dist/ folder. */
const built = () => packageDirs(clone).filter((dir) => existsSync(join(dir, 'dist')));

beforeAll(async () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(root, file), join(clone, file), { preserveTimestamps: true });
  }
  // As installed: the root's node_modules shared, each package's own links (to its siblings in the clone, and into the root's store) copied.
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
  for (const dir of packageDirs(root)) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) cpSync(modules, join(clone, modules.slice(root.length)), { recursive: true, verbatimSymlinks: true });
  }
  agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
});
afterAll(async () => {
  await agent?.close();
  rmSync(clone, { recursive: true, force: true });
});

/** `npm run taskwire -- ...args` in the clone (not blocking this process: the agent answers from here). */
function taskwire(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'taskwire', '--', ...args], { cwd: clone, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run taskwire in a clone where nothing is built', () => {
  it('answers --help and a call to a running agent, and builds nothing', async () => {
    expect(built()).toEqual([]);
    const help = await taskwire(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: taskwire <command>/);
    const sent = await taskwire(['send', agent.baseUrl, 'echo', 'from', 'sources', '--state', join(clone, 'state.json')]);
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^from sources\n\(task \S+: completed\)\n$/);
    expect(sent.stderr).not.toMatch(/Building/);
    expect(built()).toEqual([]);
  });
});
