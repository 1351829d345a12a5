// An app that uses the publishable packages as npm users get them: each
// package is built when its build is older than its sources, packed with
// pnpm (the tarball npm would publish), and unpacked into the app's
// node_modules. Their third-party dependencies, and those the examples
// import, are linked from the workspace's install (the lockfile's versions),
// so no registry is needed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildStalePackages, publishablePackages, tarballName } from '../publishable.mjs';

const PNPM = ['-y', 'pnpm@10.34.9'];

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}${result.stderr}`);
}

/** Where the workspace installed `name`: the first node_modules (root, packages, examples) that has it. */
function installed(root: string, name: string): string | undefined {
  const homes = [root, ...['packages', 'examples'].flatMap((d) => readdirSync(join(root, d)).map((f) => join(root, d, f)))];
  for (const home of homes) {
    const dir = join(home, 'node_modules', name);
    if (existsSync(join(dir, 'package.json'))) return realpathSync(dir);
  }
  return undefined;
}

/**
 * Prepares `app` (emptied first): package.json with `"type": "module"`, the
 * packed packages and the third-party packages they and the examples need
 * (`extra`) in node_modules. Resolves with the packages' names.
 */
export function installPackages(root: string, app: string, extra: readonly string[]): string[] {
  const packages = publishablePackages(root).map(({ dir, name, version, pkg }) => ({ dir, name, version, deps: Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }) }));
  buildStalePackages(root);

  rmSync(app, { recursive: true, force: true });
  const tarballs = join(app, '.tarballs');
  mkdirSync(tarballs, { recursive: true });
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }, null, 2)}\n`);
  run('npx', [...PNPM, '-r', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', tarballs], root);
  for (const p of packages) {
    const tarball = join(tarballs, tarballName(p.name, p.version));
    const into = join(app, 'node_modules', p.name);
    mkdirSync(into, { recursive: true });
    run('tar', ['-xzf', tarball, '-C', into, '--strip-components=1'], app);
  }
  const ours = new Set(packages.map((p) => p.name));
  const wanted = new Set([...packages.flatMap((p) => p.deps), ...extra].filter((name) => !ours.has(name)));
  for (const name of wanted) {
    const from = installed(root, name);
    if (!from) throw new Error(`${name} is not installed in the workspace: add it to a package's devDependencies`);
    const to = join(app, 'node_modules', name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(from, to, 'junction');
  }
  return packages.map((p) => p.name);
}
