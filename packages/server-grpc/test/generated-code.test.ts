import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const committed = join(packageDir, 'src/gen');
const fresh = mkdtempSync(join(tmpdir(), 'taskwire-gen-'));

afterAll(() => rmSync(fresh, { recursive: true, force: true }));

/** Every file under `root`, as sorted paths relative to it. */
function files(root: string, dir = root): string[] {
  return readdirSync(dir)
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(root, join(dir, name)) : [relative(root, join(dir, name))]))
    .sort();
}

it('the committed src/gen is what `pnpm gen` makes from proto/ (run it after editing a .proto)', () => {
  execFileSync(process.execPath, [join(packageDir, 'scripts/gen.mjs'), fresh], { stdio: 'pipe' });
  expect(files(committed)).toEqual(files(fresh));
  for (const file of files(fresh)) {
    expect(readFileSync(join(committed, file), 'utf8'), `src/gen/${file} is stale: run \`pnpm gen\` in packages/server-grpc`).toBe(
      readFileSync(join(fresh, file), 'utf8'),
    );
  }
});
