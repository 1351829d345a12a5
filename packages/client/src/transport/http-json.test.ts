import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEvent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { A2AServer } from '@taskwire/server-http';
import { serveA2A } from '@taskwire/server-http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpJsonTransport } from './http-json.js';

const card = referenceAgentCard([{ url: 'memory://t', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] });

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe('httpJsonTransport on the wire', () => {
  const seen: Seen[] = [];
  let reply: { status: number; type: string; body: string } = { status: 200, type: 'application/a2a+json', body: '{}' };
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.writeHead(reply.status, { 'content-type': reply.type }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/rest/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    seen.length = 0;
    reply = { status: 200, type: 'application/a2a+json', body: '{}' };
  });

  it('follows the routes of the method table: verbs, path parameters, query, body, A2A-Version', async () => {
    const transport = httpJsonTransport({ url: base, headers: { 'x-api-key': 'k' } });
    await transport.unary('SendMessage', { message: message('hi'), configuration: { returnImmediately: true } });
    await transport.unary('GetTask', { id: 'task/1', historyLength: 2 });
    await transport.unary('ListTasks', { contextId: 'c 1', status: 'TASK_STATE_WORKING', includeArtifacts: false, pageSize: 10 });
    await transport.unary('CancelTask', { id: 't1' });
    await transport.unary('DeleteTaskPushNotificationConfig', { taskId: 't1', id: 'cfg' });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /a2a/rest/message:send',
      'GET /a2a/rest/tasks/task%2F1?historyLength=2',
      'GET /a2a/rest/tasks?contextId=c+1&status=TASK_STATE_WORKING&includeArtifacts=false&pageSize=10',
      'POST /a2a/rest/tasks/t1:cancel',
      'DELETE /a2a/rest/tasks/t1/pushNotificationConfigs/cfg',
    ]);
    expect(seen[0]!.headers).toMatchObject({ 'a2a-version': '1.0', 'content-type': 'application/a2a+json', 'x-api-key': 'k' });
    expect(JSON.parse(seen[0]!.body).configuration).toEqual({ returnImmediately: true });
    expect(seen[3]!.body).toBe('{}');
    expect(seen[1]!.body).toBe('');
  });

  it('puts the tenant in the path prefix (the call’s own tenant wins)', async () => {
    await httpJsonTransport({ url: base, tenant: 'acme' }).unary('GetTask', { id: 't1' });
    await httpJsonTransport({ url: base, tenant: 'acme' }).unary('ListTasks', { tenant: 'globex' });
    expect(seen.map((s) => s.url)).toEqual(['/a2a/rest/acme/tasks/t1', '/a2a/rest/globex/tasks']);
  });

  it('subscribes with GET and Last-Event-ID, and throws an error event as an A2AError', async () => {
    reply = {
      status: 200,
      type: 'text/event-stream',
      body: 'id: 9\ndata: {"task":{"id":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}\n\n: heartbeat\n\nevent: error\ndata: {"error":{"code":500,"status":"INTERNAL","message":"store down","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL","domain":"a2a-protocol.org"}]}}\n\n',
    };
    const events: StreamEvent[] = [];
    const failure = await (async () => {
      for await (const event of httpJsonTransport({ url: base }).stream('SubscribeToTask', { id: 't1', afterSequence: 8 })) events.push(event);
    })().catch((e: unknown) => e);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/a2a/rest/tasks/t1:subscribe' });
    expect(seen[0]!.headers['last-event-id']).toBe('8');
    expect(events).toEqual([{ sequence: 9, response: { task: { id: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } } }]);
    expect(failure).toMatchObject({ kind: 'Internal', message: 'store down' });
  });

  it('refuses a call whose path parameter is missing, before sending anything', async () => {
    await expect(httpJsonTransport({ url: base }).unary('GetTask', { id: '' })).rejects.toMatchObject({ kind: 'InvalidParams' });
    expect(seen).toHaveLength(0);
  });
});

describe('httpJsonTransport against a Taskwire server', () => {
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
  const transport = (tenant?: string) => httpJsonTransport({ url: `${server.url}/a2a/rest`, tenant });

  it('sends, streams and reads tasks under a tenant', async () => {
    const sent = await transport('acme').unary('SendMessage', { message: message('echo rest') });
    const id = 'task' in sent ? sent.task.id : '';
    expect((await transport('acme').unary('GetTask', { id })).id).toBe(id);
    await expect(transport().unary('GetTask', { id })).rejects.toMatchObject({ kind: 'TaskNotFound', code: -32001 });
    const events: StreamEvent[] = [];
    for await (const event of transport('acme').stream('SendStreamingMessage', { message: message('slow 2 0') })) events.push(event);
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('maps AIP-193 errors back to their A2A kind', async () => {
    const done = await transport().unary('SendMessage', { message: message('echo done') });
    const id = 'task' in done ? done.task.id : '';
    await expect(transport().unary('CancelTask', { id })).rejects.toMatchObject({ kind: 'TaskNotCancelable', code: -32002 });
    await expect(transport().unary('ListTasks', { pageSize: 500 })).rejects.toMatchObject({ kind: 'InvalidParams', message: expect.stringContaining('pageSize') });
    const stream = transport().stream('SubscribeToTask', { id });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ kind: 'UnsupportedOperation' });
  });
});
