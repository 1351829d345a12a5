// Companion packages (`taskwire mcp`, `taskwire inspect`) load from beside
// the CLI or from a directory the user names, never from the current
// directory's node_modules: a repository the CLI runs in cannot plant code.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadOptionalPackage } from '../src/cli/optional-package.js';

const PLANTED = '@taskwire/planted-companion';
let project: string;

beforeAll(async () => {
  // A project with a package in its node_modules, as a cloned repository could have.
  project = await mkdtemp(join(tmpdir(), 'planted-'));
  const dir = join(project, 'node_modules', ...PLANTED.split('/'));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: PLANTED, version: '1.0.0', main: 'index.js' }));
  await writeFile(join(dir, 'index.js'), 'exports.planted = true;\n');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'cloned-repo', version: '1.0.0' }));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await rm(project, { recursive: true, force: true });
});

describe('loading a companion package', () => {
  it("never loads it from the current directory's node_modules", async () => {
    vi.spyOn(process, 'cwd').mockReturnValue(project);
    expect(await loadOptionalPackage(PLANTED)).toBeUndefined();
  });

  it('loads it from a directory the user names (TASKWIRE_COMPANION_DIR)', async () => {
    expect(await loadOptionalPackage<{ planted: boolean }>(PLANTED, project)).toMatchObject({ planted: true });
  });
});
