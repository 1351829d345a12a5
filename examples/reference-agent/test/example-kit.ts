// For the tests of the examples that serve another framework's agent on the
// reference setup (examples/*-agent): their `src/main.ts` as a process, the
// `taskwire mcp <url>` command (the client CLI's source) that an MCP client
// starts as its server on stdio, and the travel agents' suite over both.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const TSX = pathToFileURL(require.resolve('tsx')).href;
/** The repository's root, where @taskwire/mcp is installed beside @taskwire/client. */
const ROOT = join(import.meta.dirname, '..', '..', '..');

/** An example's main running as a process. */
export interface RunningExample {
  /** What it printed until it was ready (the URLs, the Try: lines). */
  readonly banner: string;
  /** The base URL its first Try: line sends to. */
  readonly url: string;
  /** Stops it with SIGINT (as Ctrl+C does); its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `src/main.ts` of the example at `root` on this Node with tsx and
 * the source condition, on free ports and a memory store; resolves once it
 * prints `Press Ctrl+C to stop.`, rejects if it exits before.
 */
export function startExample(root: string): Promise<RunningExample> {
  const args = ['--import', TSX, '--conditions=@taskwire/source', 'src/main.ts', '--port', '0', '--grpc-port', '0', '--store', 'memory'];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: root, env: { ...process.env, OPENAI_API_KEY: '' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let output = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (!output.includes('Press Ctrl+C to stop.')) return;
      const url = /send (\S+)/.exec(output)?.[1];
      if (url === undefined) return reject(new Error(`no Try: line with a URL in:\n${output}`));
      resolve({
        banner: output,
        url,
        async stop() {
          if (child.exitCode === null) child.kill('SIGINT');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          return exited.finally(() => clearTimeout(timer));
        },
      });
    });
  });
}

/** What an MCP client's stdio transport runs for `taskwire mcp <url>` (the `taskwire` command's source, from the root). */
export function taskwireMcp(url: string): { command: string; args: string[]; cwd: string; env: Record<string, string> } {
  const cli = join(dirname(require.resolve('@taskwire/client/package.json')), 'src', 'cli.ts');
  return { command: process.execPath, args: ['--import', TSX, '--conditions=@taskwire/source', cli, 'mcp', url], cwd: ROOT, env: { PATH: process.env.PATH ?? '' } };
}

/** What {@link describeTravelAgentOverMcp} checks of one example. */
export interface TravelAgentExample {
  /** The example's directory. */
  readonly root: string;
  /** What its banner says of the model it runs on. */
  readonly model: string;
  /** A line of the question its `book` skill asks before booking Oslo. */
  readonly question: string;
}

const textOf = (result: CallToolResult) => result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');

/**
 * The suite of a travel agent example (skills `weather` and `book`, the
 * booking asking for approval first): starts its main as a process, reaches
 * it with the MCP SDK's Client through `taskwire mcp <url>` over stdio,
 * calls a tool, answers an approval on the task, rejects another, and stops
 * it with SIGINT.
 */
export function describeTravelAgentOverMcp(name: string, { root, model, question }: TravelAgentExample): void {
  let example: RunningExample;
  let client: Client;
  const call = async (tool: string, args: Record<string, unknown>) => (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  beforeAll(async () => {
    example = await startExample(root);
    client = new Client({ name: `${name} test`, version: '1.0.0' });
    await client.connect(new StdioClientTransport(taskwireMcp(example.url)));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await example?.stop();
  });

  describe(`${name} (npm start) through taskwire mcp`, { timeout: 60_000 }, () => {
    it('says which model it runs on, and prints its Try: lines', () => {
      expect(example.banner).toContain(model);
      expect(example.banner).toMatch(/Try:\n {2}npm run taskwire -- send http/);
    });

    it("lists the card's skills as tools: a tool call, an approval answered by taskId, a rejection", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['book', 'cancel_task', 'get_task', 'list_tasks', 'weather']);

      const weather = await call('weather', { message: 'weather in Oslo' });
      expect([weather._meta?.state, textOf(weather)]).toEqual(['completed', expect.stringContaining('It is sunny and 21 °C in Oslo.')]);

      const asked = await call('book', { message: 'book Oslo' });
      expect(asked._meta).toMatchObject({ state: 'input-required', taskId: expect.any(String) });
      expect(textOf(asked)).toContain(question);
      const booked = await call('book', { message: 'approve', taskId: asked._meta!.taskId });
      expect([booked._meta?.state, textOf(booked)]).toEqual(['completed', expect.stringContaining('Booked: a trip to Oslo, reference TW-OSL-1.')]);

      const again = await call('book', { message: 'book Rome' });
      const rejected = await call('book', { message: 'no thanks', taskId: again._meta!.taskId });
      expect([rejected._meta?.state, textOf(rejected)]).toEqual(['completed', expect.stringContaining('Fine, I booked nothing.')]);
    });

    it('stops on SIGINT with exit code 0', async () => {
      expect(await example.stop()).toBe(0);
    });
  });
}
