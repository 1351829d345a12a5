// Runs the vitest projects that need Node 22 (see vitest.config.ts: the
// packages whose published engines say so, and those depending on one) in a child vitest on Node 22, when the
// parent runs on an older Node: one test per project, passing when the
// child's run passes, failing with its output otherwise.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { node22 } from './node22.mjs';

const root = join(import.meta.dirname, '..');
const projects = (process.env.TASKWIRE_NODE22_PROJECTS ?? '').split(',').filter(Boolean);

/** Runs `vitest run --project <name>` with `node`; resolves its exit code and output. */
function vitestOn(node: string, project: string): Promise<{ code: number | null; output: string }> {
  // The child is a vitest of its own: none of this worker's vitest variables.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && key !== 'TASKWIRE_NODE22_PROJECTS'));
  const child = spawn(node, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', project], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('projects that need Node 22, run on Node 22', () => {
  it('has them listed', () => {
    expect(projects.length).toBeGreaterThan(0);
  });
  for (const project of projects) {
    it(`${project}: its tests pass on Node 22`, async () => {
      const node = node22() as string;
      const { code, output } = await vitestOn(node, project);
      if (code !== 0) throw new Error(`vitest --project ${project} on ${node} exited with ${code}:\n${output}`);
      expect(output).toMatch(/Tests\s+.*\d+ passed/);
      expect(output).not.toMatch(/skipped|todo/);
    });
  }
});
