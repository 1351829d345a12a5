// input-required as an MCP elicitation, the Streamable HTTP endpoint's guard,
// the bin's --http mode, and the tool list following the card.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLink } from '../src/agent-link.js';
import { registerAgent } from '../src/register-agent.js';
import { call, CLI, overHttp, startAgent, textOf } from './kit.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe('input-required with a client that declares elicitation', () => {
  it("asks the client's user, and the answer continues the task within the same call", async () => {
    const mcp = await overHttp(agent.baseUrl, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    mcp.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'insta' } };
    });
    try {
      const result = await call(mcp.client, 'quote', { message: 'provide a sunset quote' });
      // Said to come from the remote agent at its configured URL, in its own words; never under its card's name.
      expect(asked).toEqual([`A remote A2A agent, ${agent.baseUrl}, is asking (its words, not this application's):\nDo you want Instagram, Pinterest, or General?`]);
      expect(mcp.client.getServerVersion()?.name).toBe(`a2a-bridge ${new URL(agent.baseUrl).host}`);
      expect(result._meta).toMatchObject({ state: 'completed' });
    } finally {
      await mcp.close();
    }
  });

  it('a declined elicitation hands the question to the model (the input-required result)', async () => {
    const mcp = await overHttp(agent.baseUrl, { capabilities: { elicitation: { form: {} } } });
    mcp.client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    try {
      const result = await call(mcp.client, 'quote', { message: 'provide a sunset quote' });
      expect(result._meta).toMatchObject({ state: 'input-required' });
      expect(textOf(result)).toContain('The agent asks: "Do you want Instagram, Pinterest, or General?"');
    } finally {
      await mcp.close();
    }
  });
});

describe('input-required when elicitation fails or is not form', () => {
  it.each([
    ['an elicitation the client fails', { elicitation: { form: {} } }, true],
    ['a client that declares URL elicitation only', { elicitation: { url: {} } }, false],
  ])('%s: the question goes to the model', async (_, capabilities, asks) => {
    const mcp = await overHttp(agent.baseUrl, { capabilities });
    let asked = false;
    mcp.client.setRequestHandler(ElicitRequestSchema, () => {
      asked = true;
      throw new Error('no user here');
    });
    try {
      const result = await call(mcp.client, 'quote', { message: 'provide a sunset quote' });
      expect(result.isError).toBeFalsy();
      expect(result._meta).toMatchObject({ state: 'input-required' });
      expect(asked).toBe(asks);
    } finally {
      await mcp.close();
    }
  });
});

describe('the Streamable HTTP endpoint', () => {
  it('answers loopback Host and Origin only, at its path only', async () => {
    const mcp = await overHttp(agent.baseUrl);
    try {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      const post = (url: string, headers: Record<string, string>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
      expect((await post(mcp.bridge.url, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await post(mcp.bridge.url.replace('/mcp', '/other'), {})).status).toBe(404);
      expect((await post(mcp.bridge.url, { 'mcp-session-id': 'unknown' })).status).toBe(404);
      const ok = await post(mcp.bridge.url, { origin: 'http://localhost:5173' });
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
    } finally {
      await mcp.close();
    }
  });

  it('taskwire-mcp --http 0 serves it from a real process', { timeout: 60_000 }, async () => {
    const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const child = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', CLI, agent.baseUrl, '--http', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString('utf8');
          const found = /Streamable HTTP at (\S+)/.exec(err);
          if (found) resolve(found[1]!);
        });
        child.once('exit', () => reject(new Error(`the bridge exited: ${err}`)));
      });
      const client = new Client({ name: 'mcp-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await call(client, 'echo', { message: 'echo over http' });
      expect(result.content[0]).toEqual({ type: 'text', text: 'over http' });
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('registerAgent on a server of your own', () => {
  it('adds the tools with a prefix beside your own, and follows the card when it changes', async () => {
    const server = new McpServer({ name: 'mine', version: '1.0.0' });
    server.registerTool('my_tool', { description: 'mine' }, () => ({ content: [{ type: 'text', text: 'mine' }] }));
    const link = new AgentLink(agent.baseUrl);
    const registered = registerAgent(server, link, { toolPrefix: 'ref_' });
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      // No card read yet: send_message; reading it brings the skill tools, and the client is told.
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['my_tool', 'ref_cancel_task', 'ref_get_task', 'ref_list_tasks', 'ref_send_message']);
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      await link.client();
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['my_tool', 'ref_cancel_task', 'ref_echo', 'ref_get_task', 'ref_list_tasks', 'ref_quote', 'ref_slow']);
      const result = await call(client, 'ref_echo', { message: 'echo embedded' });
      expect(result.content[0]).toEqual({ type: 'text', text: 'embedded' });
      expect(registered.tasks.has(result._meta!.taskId as string)).toBe(true);
      registered.syncTools({ ...link.card!, skills: [] });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('ref_send_message');
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('ref_echo');
    } finally {
      registered.dispose();
      await client.close();
      await link.close();
    }
  });
});
