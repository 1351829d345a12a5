import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CredentialOriginError } from '@taskwire/client';
import type { Agent } from '@taskwire/core';
import type { Tool, ToolExecutionOptions } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aTool } from './a2a-tool.js';
import type { A2AToolInput } from './a2a-tool.js';
import type { A2AToolOutput } from '@taskwire/client';
import type { Served } from './test-kit.js';
import { serve, testCard } from './test-kit.js';

const answering: Agent = async (ctx) => {
  if (ctx.text === 'hello') return ctx.reply('hi from the agent');
  await ctx.working('thinking');
  await ctx.artifact({ name: 'answer', parts: [{ text: `you said ${ctx.text}` }, { data: { length: ctx.text.length } }] });
  await ctx.complete('done');
};

/** Runs a tool's execute the way the SDK does, collecting every value it yields. */
async function run(t: Tool<A2AToolInput, A2AToolOutput>, input: A2AToolInput): Promise<A2AToolOutput[]> {
  const options: ToolExecutionOptions<unknown> = { toolCallId: 'call', messages: [], context: undefined };
  const out = t.execute!(input, options as never) as AsyncIterable<A2AToolOutput>;
  const values: A2AToolOutput[] = [];
  for await (const value of out) values.push(value);
  return values;
}

describe('a2aTool', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('reads the card at a URL, describes itself from it, and returns the artifacts (text and data) as the result', async () => {
    served = await serve(answering, testCard('answers'));
    const t = a2aTool({ url: served.http.url, card: await (await fetch(`${served.http.url}/.well-known/agent-card.json`)).json() });
    expect(t.description).toBe('Ask the agent "answers": The answers test agent');
    const values = await run(t, { message: 'ping' });
    expect(values.at(-1)).toMatchObject({ state: 'completed', text: 'you said ping', message: 'done', artifacts: [{ name: 'answer', text: 'you said ping', data: [{ length: 4 }] }] });
    expect(values.slice(0, -1).map((v) => v.state)).toContain('working');
  });

  it('polls an agent whose card says it does not stream, and returns the same result', async () => {
    served = await serve(answering, testCard('poller', false));
    const values = await run(a2aTool({ url: served.http.url }), { message: 'ping' });
    expect(values.at(-1)).toMatchObject({ state: 'completed', text: 'you said ping' });
    expect(values.at(-1)!.taskId).toBeDefined();
  });

  it('returns a bare message answer as state "message"', async () => {
    served = await serve(answering, testCard('answers'));
    const values = await run(a2aTool({ url: served.http.url }), { message: 'hello' });
    expect(values).toEqual([{ state: 'message', contextId: expect.any(String), text: 'hi from the agent' }]);
  });
});

/** A server on its own port (an origin) that records the headers of each request and answers `answer(path, body)`. */
async function recordingOrigin(answer: (path: string, body: string) => unknown) {
  const seen: { path: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '/', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(req.url ?? '/', body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

describe('a2aTool credentials', () => {
  it('go only to the origin of the url (and clientOptions.trustedOrigins), never to an interface the card names elsewhere', async () => {
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } } };
    const b = await recordingOrigin((_path, body) => ({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: { task } }));
    const a = await recordingOrigin(() => ({ ...testCard('elsewhere', false), supportedInterfaces: [{ url: `${b.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
    try {
      const headers = { 'x-api-key': 'k-123' };
      const refused = await run(a2aTool({ url: a.url, clientOptions: { headers } }), { message: 'ping' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CredentialOriginError);
      expect((refused as Error).message).toContain('trustedOrigins');
      expect(b.seen).toEqual([]);
      const trusted = await run(a2aTool({ url: a.url, clientOptions: { headers, trustedOrigins: [b.url] } }), { message: 'ping' });
      expect(trusted.at(-1)).toMatchObject({ state: 'completed' });
      expect(b.seen.length).toBeGreaterThan(0);
      expect(b.seen.every((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
