// The AI SDK travel agent called through MCP: @taskwire/mcp in front of it,
// the MCP SDK's own Client over Streamable HTTP and over stdio (the
// taskwire-mcp process).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { a2aAgent } from '@taskwire/ai-sdk';
import type { HttpBridge } from '@taskwire/mcp';
import { AgentLink, createMcpServer, serveHttp } from '@taskwire/mcp';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseModel, travelAgent, travelCard } from './agent.js';

const require = createRequire(import.meta.url);
const TSX = pathToFileURL(require.resolve('tsx')).href;
const MCP_CLI = join(dirname(require.resolve('@taskwire/mcp/package.json')), 'src/cli.ts');

const textOf = (result: CallToolResult) => result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

let running: RunningAgent;
let link: AgentLink;
let bridge: HttpBridge;
beforeAll(async () => {
  const options = { host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' as const }, apiKey: undefined, drainGraceMs: 0 };
  running = await serveAll(options, undefined, { agent: a2aAgent(travelAgent(chooseModel({}).model)), card: travelCard });
  link = new AgentLink(running.baseUrl);
  bridge = await serveHttp({ port: 0, newServer: () => createMcpServer({ agent: link }) });
});
afterAll(async () => {
  await bridge?.close();
  await link?.close();
  await running?.close();
});

describe.each([
  ['Streamable HTTP', () => new StreamableHTTPClientTransport(new URL(bridge.url))],
  [
    'stdio (taskwire-mcp)',
    () => new StdioClientTransport({ command: process.execPath, args: ['--import', TSX, '--conditions=@taskwire/source', MCP_CLI, running.baseUrl], env: { PATH: process.env.PATH ?? '' } }),
  ],
] as const)('the AI SDK travel agent through MCP over %s (mock model)', { timeout: 60_000 }, (_, transport) => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'ai-sdk-agent-test', version: '1.0.0' });
    await client.connect(transport());
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it("lists the card's skills as tools and calls them: a tool call, then an approval continued by taskId", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['book', 'cancel_task', 'get_task', 'list_tasks', 'weather']);

    const weather = await call(client, 'weather', { message: 'weather in Oslo' });
    expect([weather.isError ?? false, weather._meta?.state]).toEqual([false, 'completed']);
    expect(textOf(weather)).toContain('It is sunny and 21 °C in Oslo.');

    const asked = await call(client, 'book', { message: 'book Oslo' });
    expect(asked._meta).toMatchObject({ state: 'input-required', taskId: expect.any(String) });
    const booked = await call(client, 'book', { message: 'approve', taskId: asked._meta!.taskId });
    expect(booked._meta).toMatchObject({ state: 'completed', taskId: asked._meta!.taskId });
    expect(textOf(booked)).toContain('Booked: a trip to Oslo, reference TW-OSL-1.');
  });
});
