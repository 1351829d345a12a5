// A scratch copy of the repository for rehearsing a release: the files git
// tracks (and new ones it does not ignore) that a release reads (the root's
// package.json, workspace and lockfile, .changeset/, the root scripts, every
// workspace package.json, the publishable packages whole), without their
// builds: the release builds them. The copy is made a git repository of its own with one
// commit, as a release checkout is, and installed with pnpm from its
// lockfile (offline: the packages are in pnpm's store since the workspace
// was installed).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { publishablePackages } from '../publishable.mjs';

function git(args: string[], cwd: string): string {
  const r = spawnSync('git', ['-c', 'user.name=Release Test', '-c', 'user.email=release-test@localhost', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Copies what a release of the repository at `root` needs into `into` and installs it with `pnpm` (a path to the pinned pnpm; see above); returns `into`. */
export function scratchCopy(root: string, into: string, pnpm: string): string {
  const packageDirs = publishablePackages(root).map((p) => `${relative(root, p.dir)}/`);
  const wanted = (path: string) =>
    !path.includes('/') ||
    path.startsWith('.changeset/') ||
    /^scripts\/[^/]+\.mjs$/.test(path) ||
    path.endsWith('/package.json') ||
    packageDirs.some((dir) => path.startsWith(dir));
  const files = git(['ls-files', '--cached', '--others', '--exclude-standard'], root).split('\n').filter((f) => f && wanted(f));
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(root, file), join(into, file), { preserveTimestamps: true });
  }
  git(['init', '-q', '-b', 'main'], into);
  git(['add', '-A'], into);
  git(['commit', '-q', '-m', 'release rehearsal'], into);
  const install = spawnSync(pnpm, ['install', '--frozen-lockfile', '--offline', '--reporter=silent'], { cwd: into, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`pnpm install in the scratch copy failed: ${install.error ?? `exit ${install.status}`}\n${install.stdout}${install.stderr}`);
  return into;
}

/** Runs git in `cwd` (the scratch copy) with a committer of its own; returns its output. */
export { git as scratchGit };
