// A user's app on a web framework installed from npm, laid out from a
// hosting page (docs/hosting/*.md): the page's files are its ```ts (or
// ```json) blocks whose info string names a path
// (```ts app/a2a/[[...path]]/route.ts). The framework is installed with npm
// into .cache/hosting/<name> (kept between runs, installed again only when
// the versions asked for change; not under node_modules, where Turbopack
// would take the app for a dependency); Taskwire's packages are copied in as packed
// for npm (see ../readme-examples/install.ts), with their own third-party
// dependencies added to the install.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { installPackages } from '../readme-examples/install.js';

const FILE_BLOCK = /^```(?:ts|tsx|js|json) +(\S+)\n([\s\S]*?)^```/gm;

/** The files a page lays out: each ```ts, ```tsx, ```js or ```json block that names a path, by that path. */
export function docFiles(markdown: string): Map<string, string> {
  return new Map([...markdown.matchAll(FILE_BLOCK)].map((match) => [match[1]!, match[2]!]));
}

/** What an app is made of. */
export interface AppSpec {
  /** Third-party packages and their exact versions (the framework, its peers, types). */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Taskwire packages the app imports, by name (`@taskwire/server-http`); those they depend on come along. */
  readonly taskwire: readonly string[];
  /** The app's files, by path from its root. */
  readonly files: ReadonlyMap<string, string>;
  /** Extra package.json fields (`"type": "module"`). */
  readonly manifest?: Readonly<Record<string, unknown>>;
  /** Top-level entries kept from the last run beside the install (a build's output); every other file is laid out afresh. */
  readonly keep?: readonly string[];
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** A digest of what a build of the app depends on: its manifest, its files and the Taskwire packages in it. */
export function appDigest(dir: string, spec: AppSpec, packages: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(dir, 'package.json')));
  for (const [path, text] of [...spec.files].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0${text}\0`);
  for (const name of packages) {
    const home = join(dir, 'node_modules', name);
    for (const file of files(home).sort()) hash.update(`${relative(home, file)}\0`).update(readFileSync(file));
  }
  return hash.digest('hex');
}

/**
 * Lays out the app in `dir` (kept between runs): package.json, an npm
 * install when its dependencies changed, the Taskwire packages copied from
 * `packed` (an app of ../readme-examples/install.ts) and the page's files.
 * Resolves with the names of the Taskwire packages it holds.
 */
export function frameworkApp(dir: string, packed: string, spec: AppSpec): string[] {
  const ours = new Set<string>();
  const thirdParty: Record<string, string> = {};
  const visit = (name: string) => {
    if (ours.has(name)) return;
    ours.add(name);
    const pkg = JSON.parse(readFileSync(join(packed, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
      if (dep.startsWith('@taskwire/')) visit(dep);
      else thirdParty[dep] = range;
    }
  };
  spec.taskwire.forEach(visit);
  mkdirSync(dir, { recursive: true });
  const manifest = `${JSON.stringify({ name: 'hosting-app', private: true, ...spec.manifest, dependencies: { ...thirdParty, ...spec.dependencies } }, null, 2)}\n`;
  const marker = join(dir, 'node_modules', '.installed-manifest');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== manifest) {
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    rmSync(join(dir, 'package-lock.json'), { force: true });
    writeFileSync(join(dir, 'package.json'), manifest);
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
    if (npm.status !== 0) throw new Error(`npm install failed in ${dir}:\n${npm.stdout}${npm.stderr}`);
    writeFileSync(marker, manifest);
  }
  for (const name of ours) {
    const into = join(dir, 'node_modules', name);
    rmSync(into, { recursive: true, force: true });
    cpSync(join(packed, 'node_modules', name), into, { recursive: true, dereference: true });
  }
  const kept = new Set(['node_modules', 'package.json', 'package-lock.json', ...(spec.keep ?? [])]);
  for (const entry of readdirSync(dir)) if (!kept.has(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
  for (const [path, text] of spec.files) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return [...ours].sort();
}

/** A page's app that is built before it runs, and how. */
export interface BuiltAppSpec extends Omit<AppSpec, 'files' | 'keep'> {
  /** The page, from the repository root (`docs/hosting/nextjs.md`). */
  readonly doc: string;
  /** The build's output folder (`.next`, `dist`), kept between runs with the digest of what it was built from. */
  readonly output: string;
  /** The build command, run in the app's folder: a script of the app's own install run with this Node (`node_modules/next/dist/bin/next`), and its arguments. */
  readonly build: readonly [script: string, ...args: string[]];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Lays out the app of `spec.doc` in `.cache/hosting/<name>` (see
 * {@link frameworkApp}; packed packages in `.hosting/<name>-packages`) and
 * builds it unless its output was built from the same files, versions and
 * packages. Resolves with the app's folder.
 */
export function builtApp(root: string, name: string, spec: BuiltAppSpec): string {
  const dir = join(root, '.cache', 'hosting', name);
  const packed = join(root, '.hosting', `${name}-packages`);
  installPackages(root, packed, []);
  const app: AppSpec = { ...spec, files: docFiles(readFileSync(join(root, spec.doc), 'utf8')), keep: [spec.output] };
  const ours = frameworkApp(dir, packed, app);
  const digest = appDigest(dir, app, ours);
  const built = join(dir, spec.output, '.taskwire-build-digest');
  if (!existsSync(built) || readFileSync(built, 'utf8') !== digest) {
    const [script, ...args] = spec.build;
    const build = spawnSync(process.execPath, [join(dir, script), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...spec.env }, timeout: 540_000 });
    if (build.status !== 0) throw new Error(`${spec.build.join(' ')} failed in ${dir}:\n${build.stdout}${build.stderr}`);
    writeFileSync(built, digest);
  }
  return dir;
}
