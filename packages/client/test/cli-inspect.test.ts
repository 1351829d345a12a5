// `taskwire inspect`: handed to @taskwire/inspector when it loads, else a
// message saying how to install it. The client never imports the inspector.
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { InspectorModule } from '../src/cli/inspect.js';
import { loadInspector } from '../src/cli/inspect.js';
import { EXIT } from '../src/cli/main.js';
import { runMain } from './cli-run.js';

const run = (argv: readonly string[], inspector: () => Promise<InspectorModule | undefined>) =>
  runMain(argv, tmpdir(), { env: { TASKWIRE_API_KEY: 'k' }, inspector });

describe('taskwire inspect', () => {
  it('hands every argument after "inspect" to the inspector, with the same output and environment, and exits with its code', async () => {
    const calls: { argv: readonly string[]; env: unknown }[] = [];
    const inspector: InspectorModule = {
      async runInspect(argv, io) {
        calls.push({ argv, env: io.env });
        io.stdout.write('checked\n');
        return 1;
      },
    };
    const { code, out, err } = await run(['inspect', '--check', 'http://127.0.0.1:8080', '--interface', '2'], async () => inspector);
    expect(calls).toEqual([{ argv: ['--check', 'http://127.0.0.1:8080', '--interface', '2'], env: { TASKWIRE_API_KEY: 'k' } }]);
    expect({ code, out, err }).toEqual({ code: 1, out: 'checked\n', err: '' });
  });

  it('says how to install @taskwire/inspector when it is not installed (usage exit code)', async () => {
    const { code, err } = await run(['inspect', 'http://127.0.0.1:8080'], async () => undefined);
    expect(code).toBe(EXIT.usage);
    expect(err).toContain('npm install @taskwire/inspector');
  });

  it('loads @taskwire/inspector where it is installed (here: the workspace) and runs it', async () => {
    const { code, out } = await run(['inspect', '--help'], () => loadInspector());
    expect(out).toContain('taskwire inspect --check <url>');
    expect(code).toBe(EXIT.ok);
  });
});
