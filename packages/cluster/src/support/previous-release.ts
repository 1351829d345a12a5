import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, tsxLoader } from '@taskwire/reliability/support/agent-process';

/** The probe's source in this repository; it is copied into each release's `@taskwire/postgres` to run with that release's code. */
const PROBE_SOURCE = fileURLToPath(new URL('./release-store-probe.ts', import.meta.url));
/** Where the probe goes in a release's tree (inside `@taskwire/postgres`, so it imports that package by name). */
const PROBE_PATH = 'packages/postgres/src/release-store-probe.ts';
const PNPM = ['-y', 'pnpm@10.34.9'];

/** An earlier commit of this repository, unpacked and installed on its own, whose code runs as separate processes. */
export interface Release {
  /** The commit (as given). */
  readonly commit: string;
  /** Its tree (`.cache/previous-release/<commit>`), where its reference agent runs from. */
  readonly root: string;
  /**
   * Runs `op` of the store probe (see release-store-probe.ts) with this
   * release's `@taskwire/postgres` and core in a process of its own;
   * resolves what it printed (JSON), rejects with its stderr.
   */
  probe<T = unknown>(url: string, schema: string, op: string, ...args: string[]): Promise<T>;
}

function run(command: string, args: readonly string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

/**
 * The tree of `commit`, unpacked with `git archive` into
 * `.cache/previous-release/<commit>` and installed with its own lockfile
 * (from the package store when it can, from the registry otherwise), once:
 * later calls find it ready (a `.installed` mark). Throws, saying what is
 * missing, when the repository does not have the commit (a shallow clone):
 * the mixed-release tests never skip.
 */
export function previousRelease(commit: string): Release {
  try {
    run('git', ['cat-file', '-e', `${commit}^{commit}`], REPO_ROOT);
  } catch {
    throw new Error(
      `The mixed-release tests run commit ${commit} (a previous release) beside this one, but this clone does not have it: ` +
        `fetch the full history (git fetch --unshallow) and run them again.`,
    );
  }
  const root = join(REPO_ROOT, '.cache', 'previous-release', commit);
  if (!existsSync(join(root, '.installed'))) {
    // Built aside and moved into place whole: test files building the same release at once never see half a tree.
    const building = `${root}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${building}"`], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      run('npx', [...PNPM, 'install', '--offline', '--frozen-lockfile'], building);
    } catch {
      run('npx', [...PNPM, 'install', '--prefer-offline', '--frozen-lockfile'], building);
    }
    writeFileSync(join(building, '.installed'), `${new Date().toISOString()}\n`);
    if (!existsSync(join(root, '.installed'))) rmSync(root, { recursive: true, force: true });
    try {
      renameSync(building, root);
    } catch (error) {
      // Another test file moved its build there first: use that one.
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(join(root, '.installed'))) throw error;
    }
  }
  const probe = join(root, PROBE_PATH);
  const staged = `${probe}.${process.pid}`;
  copyFileSync(PROBE_SOURCE, staged);
  renameSync(staged, probe);
  const tsx = tsxLoader(root);
  return {
    commit,
    root,
    probe: <T>(url: string, schema: string, op: string, ...args: string[]) =>
      new Promise<T>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', tsx, '--conditions=@taskwire/source', probe, url, schema, op, ...args], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.once('error', reject);
        child.once('exit', (code) => {
          if (code === 0) resolve(JSON.parse(stdout) as T);
          else reject(new Error(`${commit}'s store ${op} failed (${code}): ${stderr.trim()}`));
        });
      }),
  };
}
