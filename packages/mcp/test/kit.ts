// Real MCP clients (the SDK's own Client) talking to the bridge: over stdio
// (the taskwire-mcp process) and over Streamable HTTP.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { AgentLink } from '../src/agent-link.js';
import { createMcpServer } from '../src/create-server.js';
import type { HttpBridge } from '../src/http-server.js';
import { serveHttp } from '../src/http-server.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
/** The bin's source (run with tsx and the source condition: the bin as built, minus the build). */
export const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** The reference agent on 127.0.0.1 (every transport, memory store), optionally requiring an API key. */
export function startAgent(apiKey?: string): Promise<RunningAgent> {
  return serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, drainGraceMs: 0, apiKey });
}

/** A connected MCP client and how to stop what it talks to. */
export interface Connected {
  readonly client: Client;
  /** What the bridge process wrote on stderr so far (stdio only). */
  readonly stderr: () => string;
  close(): Promise<void>;
}

/** Client capabilities a test may declare (e.g. elicitation). */
type Capabilities = ConstructorParameters<typeof Client>[1];

/** Spawns `taskwire-mcp <args>` and connects an MCP client to it over stdio. */
export async function overStdio(args: readonly string[], env: Record<string, string> = {}, options?: Capabilities): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, '--conditions=@taskwire/source', CLI, ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Serves the bridge for `agentUrl` over Streamable HTTP in this process (each session scoped to its own tasks, as the command does) and connects an MCP client to it. */
export async function overHttp(agentUrl: string, options?: Capabilities, timeoutMs?: number): Promise<Connected & { bridge: HttpBridge }> {
  const link = new AgentLink(agentUrl);
  const bridge = await serveHttp({ port: 0, newServer: ({ scope }) => createMcpServer({ agent: link, scope, ...(timeoutMs !== undefined && { timeoutMs }) }) });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url)));
  return {
    client,
    bridge,
    stderr: () => '',
    close: async () => {
      await client.close();
      await bridge.close();
      await link.close();
    },
  };
}

/** Calls a tool and returns its result as a `CallToolResult`. */
export async function call(client: Client, name: string, args: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

/** The text blocks of a result, joined by newlines. */
export function textOf(result: CallToolResult): string {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
