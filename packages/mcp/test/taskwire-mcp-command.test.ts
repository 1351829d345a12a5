// `taskwire mcp <url>`: the client's CLI loading this package, end to end.
// The SDK's MCP Client spawns the `taskwire` command (its source, run with
// tsx and the source condition) over stdio against the reference agent.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAgent } from './kit.js';

const require = createRequire(import.meta.url);
const TSX = pathToFileURL(require.resolve('tsx')).href;
/** The `taskwire` command's source. */
const TASKWIRE = join(dirname(require.resolve('@taskwire/client/package.json')), 'src', 'cli.ts');
/** The workspace root: where @taskwire/mcp is installed beside @taskwire/client. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let agent: RunningAgent;
let client: Client;
let stderr = '';
beforeAll(async () => {
  agent = await startAgent();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, '--conditions=@taskwire/source', TASKWIRE, 'mcp', agent.baseUrl],
    env: { PATH: process.env.PATH ?? '' },
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  client = new Client({ name: 'taskwire-mcp-command-test', version: '1.0.0' });
  await client.connect(transport);
}, 30_000);
afterAll(async () => {
  await client?.close();
  await agent?.close();
});

describe('taskwire mcp <url> over stdio', { timeout: 60_000 }, () => {
  it('lists the tools of the agent card', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort(), stderr).toEqual(['cancel_task', 'echo', 'get_task', 'list_tasks', 'quote', 'slow']);
  });

  it('calls echo and answers with the text and the task', async () => {
    const result = await call(client, 'echo', { message: 'echo through taskwire mcp' });
    expect(result.isError, stderr).toBeFalsy();
    expect(result.content[0]).toEqual({ type: 'text', text: 'through taskwire mcp' });
    expect(result._meta).toMatchObject({ state: 'completed', taskId: expect.any(String), contextId: expect.any(String) });
  });
});
