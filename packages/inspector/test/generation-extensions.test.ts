// The inspector's API against a real agent speaking A2A 1.1 with an extension: timeline entries carry the generation,
// the stream and unary answers say which extensions the agent activated.
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A, type A2AServer } from '@taskwire/server-http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InspectorApi } from '../src/api.js';
import type { TimelineEntry } from '../src/timeline.js';

const STAMP = 'https://example.com/ext/timestamp/v1';
const agent: Agent = async (ctx) => {
  ctx.extensions.activate(STAMP);
  await ctx.working();
  await ctx.complete('done');
};

let server: A2AServer;
let api: InspectorApi;
beforeAll(async () => {
  const plain = referenceAgentCard([{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const card = { ...plain, capabilities: { ...plain.capabilities, extensions: [{ uri: STAMP }] } };
  server = await serveA2A({ service: new TaskService({ store: createMemoryTaskStore(), agent, card, protocol: { v1_1: true } }) });
  api = new InspectorApi();
});
afterAll(async () => {
  await api?.close();
  await server?.close();
});

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] });

it('shows each event with its generation and the activated extensions, on A2A 1.1; neither when not asked for', async () => {
  const sent: [string, unknown][] = [];
  const body = { url: server.url, method: 'SendStreamingMessage', params: { message: message() }, extensions: [STAMP], version: '1.1' };
  await api.stream(body, (event, data) => sent.push([event, data]), new AbortController().signal);
  expect(sent[0]).toEqual(['extensions', { activated: [STAMP] }]);
  const entries = sent.filter(([event]) => event === 'entry').map(([, data]) => data as TimelineEntry);
  expect(entries.map((e) => e.generation)).toEqual([1, 2, 3]);
  const id = (entries[0]!.response as { task: { id: string } }).task.id;
  expect(await api.call({ url: server.url, method: 'GetTask', params: { id }, version: '1.1', extensions: [STAMP] })).toMatchObject({ result: { generation: 3 }, extensions: [] });
  const plain = await api.call({ url: server.url, method: 'GetTask', params: { id } });
  expect(plain).not.toHaveProperty('extensions');
  expect('result' in plain && plain.result).not.toHaveProperty('generation');
  await expect(api.call({ url: server.url, method: 'GetTask', params: { id }, version: '2.0' })).rejects.toThrow(/"version" must be/);
});
