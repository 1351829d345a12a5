// The workspace's publishable packages, and when a package's build is stale.
// Shared by the root scripts (pack, prepack, check-packages) and the tests
// that pack or publish the packages.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { withBuildLock } from './build-lock.mjs';

/**
 * The publishable packages of the workspace at `root`: the folders of
 * `packages/` whose package.json is not `"private": true`, in folder order,
 * each with its folder, name, version and parsed package.json.
 */
export function publishablePackages(root) {
  return readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ dir, name: pkg.name, version: pkg.version, pkg }));
}

/** The newest modification time (ms since the epoch) of the files under `path` (or of the file itself); 0 when it does not exist. */
export function newestUnder(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** True when the package in `dir` has no `dist/`, or one older than its sources (`src/`, its tsup config). */
export function buildIsStale(dir) {
  const sources = Math.max(newestUnder(join(dir, 'src')), newestUnder(join(dir, 'tsup.config.ts')));
  const built = newestUnder(join(dir, 'dist'));
  return built === 0 || built < sources;
}

/** The file name npm and pnpm give the tarball of `name` at `version` (`@taskwire/core` 1.2.0: `taskwire-core-1.2.0.tgz`). */
export function tarballName(name, version) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * Builds, with the pinned pnpm, the publishable packages of the workspace at
 * `root` whose build is missing or stale ({@link buildIsStale}); returns
 * their names (none: nothing ran). Throws with pnpm's output when the build
 * fails. Holds the build lock (scripts/build-lock.mjs) meanwhile, so a pack
 * or build elsewhere in the workspace waits rather than empty its dist/.
 */
export function buildStalePackages(root) {
  return withBuildLock(root, 'building the stale packages for the tests', () => {
    const stale = publishablePackages(root).filter((p) => buildIsStale(p.dir));
    if (stale.length === 0) return [];
    const build = spawnSync('npx', ['-y', 'pnpm@10.34.9', ...stale.flatMap((p) => ['--filter', p.name]), 'build'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`building ${stale.map((p) => p.name).join(', ')} failed:\n${build.stdout}${build.stderr}`);
    return stale.map((p) => p.name);
  });
}

/**
 * True when an `engines.node` range of the forms the packages use (majors
 * joined by `||`, such as `20 || 22 || 24`, or `>=N`) admits Node `major`.
 */
export function enginesAdmit(range, major) {
  return range.split('||').some((part) => {
    const atLeast = /^\s*>=\s*(\d+)/.exec(part);
    return atLeast ? major >= Number(atLeast[1]) : Number(part.trim().split('.')[0]) === major;
  });
}

/**
 * The `engines.node` range of the package as published: `publishConfig.engines`
 * when it has one (the packing hook in .pnpmfile.cjs moves it into `engines`),
 * else its `engines`; undefined when it names none.
 */
export function publishedNodeRange(pkg) {
  return pkg.publishConfig?.engines?.node ?? pkg.engines?.node;
}

/**
 * The publishable packages (of {@link publishablePackages}) that installing
 * the ones named in `wanted` needs: those, and the Taskwire packages in their
 * `dependencies` and required `peerDependencies`, transitively; in the order
 * of `packages`. A name is a package name (`@taskwire/core`) or its folder
 * (`core`). Throws, naming the packages there are, on a name that is none.
 */
export function withTaskwireDependencies(packages, wanted) {
  const byName = new Map(packages.flatMap((p) => [[p.name, p], [p.dir.split(/[\\/]/).pop(), p]]));
  const needed = new Set();
  const visit = (name) => {
    const p = byName.get(name);
    if (p === undefined) throw new Error(`no publishable package ${name}; there are: ${packages.map((q) => q.dir.split(/[\\/]/).pop()).join(', ')}`);
    if (needed.has(p)) return;
    needed.add(p);
    const optional = p.pkg.peerDependenciesMeta ?? {};
    const required = [...Object.keys(p.pkg.dependencies ?? {}), ...Object.keys(p.pkg.peerDependencies ?? {}).filter((dep) => optional[dep]?.optional !== true)];
    for (const dep of required) if (dep.startsWith('@taskwire/')) visit(dep);
  };
  for (const name of wanted) visit(name);
  return packages.filter((p) => needed.has(p));
}
