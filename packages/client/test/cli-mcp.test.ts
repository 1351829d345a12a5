// `taskwire mcp`: handed to @taskwire/mcp when it loads, else a message
// saying how to install it. The client never imports @taskwire/mcp (it
// depends on the client); the end-to-end run with a real MCP client is in
// packages/mcp/test/taskwire-mcp-command.test.ts.
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { McpModule } from '../src/cli/mcp.js';
import { loadMcp } from '../src/cli/mcp.js';
import { EXIT, main } from '../src/cli/main.js';

async function run(argv: readonly string[], mcp: () => Promise<McpModule | undefined>) {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: { TASKWIRE_TOKEN: 't' }, home: tmpdir(), mcp });
  return { code, out, err };
}

describe('taskwire mcp', () => {
  it('hands every argument after "mcp" to runMcp, with the same output, environment and signal, and exits with its code', async () => {
    const calls: { argv: readonly string[]; env: unknown; signal: unknown }[] = [];
    const mcp: McpModule = {
      async runMcp(argv, io) {
        calls.push({ argv, env: io.env, signal: io.signal });
        io.stderr.write('bridge stopped\n');
        return 0;
      },
    };
    const { code, out, err } = await run(['mcp', 'http://127.0.0.1:8080', '--http', '3000', '--prefix', 'sun_'], async () => mcp);
    expect(calls).toEqual([{ argv: ['http://127.0.0.1:8080', '--http', '3000', '--prefix', 'sun_'], env: { TASKWIRE_TOKEN: 't' }, signal: undefined }]);
    expect({ code, out, err }).toEqual({ code: 0, out: '', err: 'bridge stopped\n' });
  });

  it('passes its exit code through', async () => {
    const mcp: McpModule = { runMcp: async () => 1 };
    expect((await run(['mcp'], async () => mcp)).code).toBe(1);
  });

  it('says how to install @taskwire/mcp when it is not installed (usage exit code)', async () => {
    const { code, out, err } = await run(['mcp', 'http://127.0.0.1:8080'], async () => undefined);
    expect(code).toBe(EXIT.usage);
    expect(out).toBe('');
    expect(err).toContain('npm install @taskwire/mcp');
    expect(err).toContain('npx -y @taskwire/mcp <agent-url>');
    expect(err).toContain('from a clone of the Taskwire repository: "npm run taskwire -- mcp <agent-url>", or "npm run pack -- client mcp"');
  });

  it('loads @taskwire/mcp where it is installed (here: the workspace) and runs it', async () => {
    const { code, out } = await run(['mcp', '--help'], () => loadMcp());
    expect(out).toContain('Usage: taskwire-mcp <agent-url> [options]');
    expect(code).toBe(EXIT.ok);
  });

  it('lists mcp in the help', async () => {
    const { out } = await run(['--help'], async () => undefined);
    expect(out).toMatch(/^ {2}mcp <url> +the agent as an MCP server/m);
  });
});
