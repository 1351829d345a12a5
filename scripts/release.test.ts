import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enginesAdmit, publishablePackages, publishedNodeRange } from './publishable.mjs';
import { examplesOf } from './readme-examples/blocks.js';
import { runToEnd, start, whenReady, type Running } from './readme-examples/run.js';
import { nodeBinary } from './release/npm-binaries.js';
import { freePort, installVerdaccio, startRegistry, type Registry } from './release/registry.js';
import { scratchCopy, scratchGit } from './release/scratch.js';

// The release, rehearsed end to end against a real npm registry (Verdaccio,
// started here on 127.0.0.1): in a scratch copy of the repository,
// the release plan of the pending changesets (0.x, no major forced by a
// peer range, and a minor of @taskwire/server-grpc stays a minor for all),
// `changeset version`, then the root's `release` script, as the release
// workflow runs it: the build, then `changeset publish` of every
// publishable package (each package's prepack refuses one without its build). Then an empty app outside the repository
// installs the packages by name from that registry, as the root README
// says, then on every Node the packages support loads each package whose
// published engines admit that Node and runs the README's agent and client
// quickstarts. Publishing a version again is refused.
const root = join(import.meta.dirname, '..');
const cache = join(root, 'node_modules', '.cache', 'taskwire-release-test');
const work = mkdtempSync(join(tmpdir(), 'taskwire-release-'));
const scratch = join(work, 'repo');
const app = join(work, 'app');
const PNPM = 'pnpm@10.34.9';
/** The Node majors the packed packages run on, beside this process's (CI's Node 20). */
const OTHER_NODES = [22, 24, 26];

let registry: Registry;
/** The environment of every npm/pnpm/changeset call here: this registry and its token, pnpm on PATH (changeset publish calls it). */
let env: NodeJS.ProcessEnv;
const packages = publishablePackages(root);

function run(command: string, args: string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, output: `${r.stdout}${r.stderr}` };
}

function mustRun(command: string, args: string[], cwd: string): string {
  const r = run(command, args, cwd);
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${r.output}`);
  return r.stdout;
}

/** Says on stderr what the rehearsal does next: its steps take minutes, and vitest prints nothing until a test ends. */
const step = (what: string) => process.stderr.write(`release rehearsal: ${what}…\n`);

const changeset = (args: string[]) => run(process.execPath, [join(scratch, 'node_modules', '@changesets', 'cli', 'bin.js'), ...args], scratch);

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  step('installing Verdaccio (once) and starting a registry');
  registry = await startRegistry(installVerdaccio(cache), join(work, 'registry'));
  // pnpm on PATH, as on a release machine: changeset publish runs `pnpm publish` in each package.
  const pnpm = mustRun('npx', ['-y', '-p', PNPM, '-c', 'command -v pnpm'], root).trim().split('\n').pop()!;
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm|pnpm)_/i.test(key))),
    PATH: `${dirname(pnpm)}${delimiter}${process.env.PATH}`,
    // changeset publish asks (npm info) and publishes where this says; npm and pnpm read the user config.
    'npm_config_@taskwire:registry': registry.url,
    npm_config_userconfig: registry.npmrc(join(work, 'npmrc')),
    npm_config_update_notifier: 'false',
  };
  step('copying the repository and installing it');
  scratchCopy(root, scratch, pnpm);
}, 600_000);
afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

/** The versions `changeset version` gave the packages in the scratch copy. */
const released = () => new Map(packages.map((p) => [p.name, JSON.parse(readFileSync(join(scratch, 'packages', p.dir.split(/[\\/]/).pop()!, 'package.json'), 'utf8'))]));

/** The release plan of the changesets pending in the scratch copy (`changeset status --output`): each package's bump and next version. */
function plan(): Map<string, { type: string; newVersion: string }> {
  const out = join(work, `status-${Date.now()}.json`);
  const status = changeset(['status', `--output=${out}`]);
  if (status.status !== 0) throw new Error(`changeset status failed:\n${status.output}`);
  const { releases } = JSON.parse(readFileSync(out, 'utf8')) as { releases: { name: string; type: string; newVersion: string }[] };
  return new Map(releases.map((r) => [r.name, r]));
}

describe('a release through a real npm registry', () => {
  it('the pending changesets make a 0.x release: no peer range forces a major on the fixed group', () => {
    const next = plan();
    for (const p of packages) {
      expect(next.get(p.name)?.type, p.name).not.toBe('major');
      expect(next.get(p.name)?.newVersion, p.name).toMatch(/^0\.\d+\.\d+$/);
    }
  });

  it('changeset version versions every publishable package, writes its CHANGELOG.md, and consumes the changesets', () => {
    step('changeset version');
    const before = released();
    const versioned = changeset(['version']);
    expect(versioned.status, versioned.output).toBe(0);
    for (const [name, pkg] of released()) {
      expect(pkg.version, name).not.toBe(before.get(name).version);
      const changelog = readFileSync(join(scratch, 'packages', name.split('/')[1]!, 'CHANGELOG.md'), 'utf8');
      expect(changelog, name).toContain(`## ${pkg.version}`);
    }
    expect(mustRun('sh', ['-c', 'ls .changeset/*.md | grep -v README.md || true'], scratch).trim()).toBe('');
    scratchGit(['add', '-A'], scratch);
    scratchGit(['commit', '-q', '-m', 'version packages'], scratch);
  }, 60_000);

  it('a minor bump of @taskwire/server-grpc (a peer dependency of the client) keeps the whole group on a minor', () => {
    const current = released().get('@taskwire/server-grpc').version as string;
    const [major, minor] = current.split('.').map(Number);
    const file = join(scratch, '.changeset', 'grpc-minor.md');
    writeFileSync(file, "---\n'@taskwire/server-grpc': minor\n---\n\nA new gRPC option.\n");
    try {
      const next = plan();
      for (const p of packages) expect(next.get(p.name), p.name).toMatchObject({ type: 'minor', newVersion: `${major}.${minor! + 1}.0` });
    } finally {
      rmSync(file);
    }
  }, 60_000);

  it('pnpm run release builds and publishes every publishable package to the registry, with internal ranges as versions and a git tag each', () => {
    step('pnpm run release: building and publishing every package (minutes)');
    const published = run('pnpm', ['run', 'release'], scratch);
    expect(published.status, published.output).toBe(0);
    for (const p of packages) expect(existsSync(join(scratch, 'packages', p.dir.split(/[\\/]/).pop()!, 'dist')), `${p.name} built in the scratch copy`).toBe(true);
    const tags = scratchGit(['tag', '--list'], scratch).split('\n');
    for (const [name, pkg] of released()) {
      const meta = JSON.parse(mustRun('npm', ['view', `${name}@${pkg.version}`, '--json'], scratch));
      expect(meta.version, name).toBe(pkg.version);
      // The engines as published: `publishConfig.engines` when the package has them (.pnpmfile.cjs moves them).
      expect(meta.engines?.node, name).toBe(publishedNodeRange(pkg));
      expect(meta.publishConfig?.engines, name).toBeUndefined();
      for (const [dep, range] of Object.entries({ ...meta.dependencies, ...meta.peerDependencies } as Record<string, string>)) {
        if (dep.startsWith('@taskwire/')) expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/);
      }
      if (meta.dependencies?.['@taskwire/core']) expect(meta.dependencies['@taskwire/core']).toBe(pkg.version);
      expect(tags, name).toContain(`${name}@${pkg.version}`);
    }
  }, 1_200_000);

  it('publishing the same version again is refused: changeset publish skips it, a direct publish fails', () => {
    const again = changeset(['publish']);
    expect(again.status, again.output).toBe(0);
    expect(again.output).toMatch(/No unpublished projects to publish/);
    const direct = run('pnpm', ['publish', '--no-git-checks'], join(scratch, 'packages', 'core'));
    expect(direct.status).not.toBe(0);
    expect(direct.output).toMatch(/cannot publish over the previously published versions|EPUBLISHCONFLICT|409 Conflict|already present/i);
  }, 120_000);

  it('an empty app outside the repository installs every package by name from the registry', () => {
    step('installing every package by name in an empty app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    const names = packages.map((p) => p.name);
    mustRun('npm', ['install', '--no-audit', '--no-fund', ...names], app);
    for (const [name, pkg] of released()) {
      expect(JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')).version, name).toBe(pkg.version);
      expect(existsSync(join(app, 'node_modules', name, 'dist')), `${name} has its build`).toBe(true);
    }
  }, 180_000);

  const readme = examplesOf('README.md', readFileSync(join(root, 'README.md'), 'utf8'));
  const agent = readme.examples.find((e) => e.serves !== undefined && e.code.includes("from '@taskwire/server-http'"))!;
  const client = readme.examples.find((e) => e.code.includes("createClient('http://127.0.0.1:8080')"))!;
  for (const major of [Number(process.versions.node.split('.')[0]), ...OTHER_NODES]) {
    it(`the packages load and the README's agent and client quickstarts run from the installed packages on Node ${major}`, async () => {
      step(`the README quickstarts on Node ${major}`);
      const node = major === Number(process.versions.node.split('.')[0]) ? { path: process.execPath, version: process.version } : nodeBinary(major, cache);
      expect(node.version.startsWith(`v${major}.`)).toBe(true);
      // Each package loads on this Node when its published engines admit it (the AI SDK's and the Agents SDK's need 22).
      const here = packages.filter((p) => enginesAdmit(publishedNodeRange(p.pkg), major)).map((p) => p.name);
      const load = mustRun(node.path, ['--input-type=module', '-e', `for (const n of ${JSON.stringify(here)}) console.log(n, Object.keys(await import(n)).length > 0);`], app);
      expect(load.trim().split('\n')).toEqual(here.map((n) => `${n} true`));
      const ports = new Map([['README.md', { from: 8080, to: await freePort() }]]);
      let server: Running | undefined;
      try {
        server = start(app, agent, ports, {}, node.path);
        await whenReady(server, agent);
        const { output } = await runToEnd(start(app, client, ports, {}, node.path), client, 30_000);
        expect(output).toContain('Which city?');
        expect(output).toContain('Here is your forecast.');
        expect(output).toContain('Sunny in Lisbon');
      } finally {
        server?.child.kill('SIGKILL');
        await server?.exited;
      }
    }, 120_000);
  }
});
