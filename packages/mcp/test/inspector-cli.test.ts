// The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, its --cli
// mode) listing and calling the tools of the taskwire-mcp command over stdio,
// against the reference agent. The command runs from its source (tsx and the
// source condition, given through NODE_OPTIONS so the inspector passes only
// the command and its arguments).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startAgent } from './kit.js';

const require = createRequire(import.meta.url);
const TSX = pathToFileURL(require.resolve('tsx')).href;
/** The inspector's command (its bin, `mcp-inspector-cli`). */
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js');
// inspector-cli 1.0.3 picks the package.json it names itself after by
// checking "../package.json" against the working directory, then imports
// that path from its own folder: it needs a working directory whose parent
// has a package.json (here packages/mcp/test, whose parent is the package).
const CWD = fileURLToPath(new URL('.', import.meta.url));

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

/** Runs `mcp-inspector-cli --cli <node> <taskwire-mcp> <agent-url> ...method` and parses the JSON it prints. */
function inspect(method: readonly string[]): Promise<unknown> {
  const argv = [INSPECTOR, '--cli', process.execPath, CLI, agent.baseUrl, ...method];
  const env = { PATH: process.env.PATH ?? '', NODE_OPTIONS: `--import=${TSX} --conditions=@taskwire/source` };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env, cwd: CWD, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the inspector failed: ${error.message}\n${stderr}`));
      else {
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`the inspector printed no JSON:\n${stdout}\n${stderr}`));
        }
      }
    });
  });
}

describe('@modelcontextprotocol/inspector-cli against taskwire-mcp', { timeout: 90_000 }, () => {
  it('tools/list: a tool per skill and the task tools', async () => {
    const listed = (await inspect(['--method', 'tools/list'])) as { tools: { name: string; inputSchema: { required?: string[] } }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'echo', 'get_task', 'list_tasks', 'quote', 'slow']);
    expect(listed.tools.find((t) => t.name === 'echo')!.inputSchema.required).toEqual(['message']);
  });

  it('tools/call echo: the text back and the task in _meta', async () => {
    const result = (await inspect(['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=echo from the inspector'])) as {
      content: unknown[];
      isError?: boolean;
      _meta?: Record<string, unknown>;
    };
    expect(result.isError).toBeFalsy();
    expect(result.content[0]).toEqual({ type: 'text', text: 'from the inspector' });
    expect(result._meta).toMatchObject({ state: 'completed', taskId: expect.any(String), contextId: expect.any(String) });
  });
});
