import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEvent } from '@taskwire/core';
import { A2AError, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { A2AServer } from '@taskwire/server-http';
import { serveA2A } from '@taskwire/server-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRpcTransport } from './json-rpc.js';

const card = referenceAgentCard([{ url: 'memory://t', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] });

/** A canned server that records what the transport sends and answers with `reply`. */
async function recorder(reply: (body: any) => { status?: number; type?: string; body: string }) {
  const seen: { headers: IncomingHttpHeaders; body: any }[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text);
      seen.push({ headers: req.headers, body });
      const answer = reply(body);
      res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, seen, close: () => new Promise((r) => server.close(r)) };
}

describe('jsonRpcTransport against a Taskwire server', () => {
  let service: TaskService;
  let server: A2AServer;
  beforeAll(async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
    server = await serveA2A({ service });
  });
  afterAll(async () => {
    await server.close();
    await service.close();
  });
  const transport = () => jsonRpcTransport({ url: `${server.url}/a2a/jsonrpc` });

  it('calls unary operations and gets v1.0 shapes', async () => {
    const result = await transport().unary('SendMessage', { message: message('echo over rpc') });
    expect('task' in result && result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('throws the server error as an A2AError with its kind, code and details', async () => {
    const error = await transport().unary('GetTask', { id: 'missing' }).catch((e: unknown) => e);
    expect(A2AError.is(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'TaskNotFound', code: -32001, metadata: { taskId: 'missing' } });
  });

  it('streams with sequences from the SSE ids, resumes with afterSequence, and closes the connection on break', async () => {
    const full: StreamEvent[] = [];
    for await (const event of transport().stream('SendStreamingMessage', { message: message('slow 4 0') })) full.push(event);
    expect(full.at(-1)!.sequence).toBeGreaterThan(full[0]!.sequence);
    const taskId = 'task' in full[0]!.response ? full[0]!.response.task.id : '';
    const resumed: StreamEvent[] = [];
    for await (const event of transport().stream('SubscribeToTask', { id: taskId, afterSequence: full[2]!.sequence })) resumed.push(event);
    expect(resumed).toEqual(full.slice(3));
    const running = await transport().unary('SendMessage', { message: message('slow 50 20'), configuration: { returnImmediately: true } });
    const id = 'task' in running ? running.task.id : '';
    for await (const event of transport().stream('SubscribeToTask', { id })) {
      expect('task' in event.response).toBe(true);
      break;
    }
    await expect.poll(() => server.handler.openStreams).toBe(0);
    await transport().unary('CancelTask', { id });
  });

  it('throws a refused stream as an A2AError before the first event', async () => {
    const stream = transport().stream('SubscribeToTask', { id: 'missing' });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ kind: 'TaskNotFound' });
  });
});

describe('jsonRpcTransport on the wire', () => {
  it('POSTs a JSON-RPC request with A2A-Version 1.0 and the configured and per-call headers', async () => {
    const canned = await recorder((body) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { tasks: [] } }) }));
    try {
      const transport = jsonRpcTransport({ url: canned.url, headers: { 'x-api-key': 'k1', 'x-trace': 'a' } });
      await transport.unary('ListTasks', { pageSize: 5 }, { headers: { 'x-trace': 'b' } });
      const [{ headers, body }] = canned.seen as [{ headers: IncomingHttpHeaders; body: any }];
      expect(headers).toMatchObject({ 'a2a-version': '1.0', 'content-type': 'application/json', 'x-api-key': 'k1', 'x-trace': 'b' });
      expect(body).toEqual({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: 5 } });
    } finally {
      await canned.close();
    }
  });

  it('sends afterSequence as Last-Event-ID and parses SSE with heartbeats', async () => {
    const sse = ': heartbeat\n\nid: 5\ndata: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n';
    const canned = await recorder(() => ({ type: 'text/event-stream', body: sse }));
    try {
      const events: StreamEvent[] = [];
      for await (const event of jsonRpcTransport({ url: canned.url }).stream('SubscribeToTask', { id: 't', afterSequence: 4 })) events.push(event);
      expect(canned.seen[0]!.headers['last-event-id']).toBe('4');
      expect(canned.seen[0]!.body.params).toEqual({ id: 't' });
      expect(events).toEqual([{ sequence: 5, response: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } } }]);
    } finally {
      await canned.close();
    }
  });

  it('throws an error sent in the middle of a stream', async () => {
    const sse = 'id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}\n\ndata: {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom","data":[]}}\n\n';
    const canned = await recorder(() => ({ type: 'text/event-stream', body: sse }));
    try {
      const seen: StreamEvent[] = [];
      const failure = await (async () => {
        for await (const event of jsonRpcTransport({ url: canned.url }).stream('SendStreamingMessage', { message: message('x') })) seen.push(event);
      })().catch((e: unknown) => e);
      expect(seen).toHaveLength(1);
      expect(failure).toMatchObject({ kind: 'Internal', message: 'boom' });
    } finally {
      await canned.close();
    }
  });

  it('uses the injected fetch, and reports an unreachable agent and a non-JSON answer as A2AErrors', async () => {
    const calls: string[] = [];
    const fetchSpy: typeof fetch = async (input, init) => {
      calls.push(String(input));
      return new Response('<html>gateway error</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    };
    const viaSpy = await jsonRpcTransport({ url: 'http://agent.invalid/rpc', fetch: fetchSpy }).unary('ListTasks', {}).catch((e: unknown) => e);
    expect(calls).toEqual(['http://agent.invalid/rpc']);
    expect(viaSpy).toMatchObject({ kind: 'Internal', message: expect.stringContaining('502') });
    const refused = await jsonRpcTransport({ url: 'http://127.0.0.1:1/rpc' }).unary('ListTasks', {}).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'Internal', message: expect.stringContaining('Could not reach the agent') });
  });

  it('rethrows the caller abort as it is', async () => {
    const abort = new AbortController();
    abort.abort(new Error('stop now'));
    const error = await jsonRpcTransport({ url: 'http://127.0.0.1:1/rpc' }).unary('ListTasks', {}, { signal: abort.signal }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('stop now');
  });
});
