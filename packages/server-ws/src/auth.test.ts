import type { TaskService } from '@taskwire/core';
import { apiKeyAuth, bearerAuth } from '@taskwire/core';
import { TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeOptions, WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { RawSocket, referenceService, typedClient, userMessage } from './test-kit.js';

describe('authentication on connection', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  const cleanups: (() => unknown)[] = [];

  async function start(options: Omit<ServeOptions, 'service'> = {}) {
    service = referenceService();
    server = await serveWebSocket({ service, auth: { authenticate: apiKeyAuth({ 'key-alice': 'alice', 'key-bob': 'bob' }) }, ...options });
  }
  function client(options: Parameters<typeof typedClient>[1]) {
    const trpc = typedClient(server.url, options);
    cleanups.push(() => trpc.close());
    return trpc.client;
  }
  async function raw(headers: Record<string, string>) {
    const socket = await RawSocket.open(server.url, headers);
    cleanups.push(() => socket.close());
    return socket;
  }
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await server.close();
    await service.close();
  });

  it('takes an API key from the upgrade headers or from connection params, and scopes every call to its principal', async () => {
    await start();
    const alice = client({ headers: { 'x-api-key': 'key-alice' } });
    const bob = client({ connectionParams: { 'x-api-key': 'key-bob' } });
    const sent = await alice.SendMessage.mutate({ message: userMessage('quote') });
    if (!('task' in sent)) throw new Error('expected a task');
    expect((await alice.GetTask.query({ id: sent.task.id })).id).toBe(sent.task.id);

    const hidden = await bob.GetTask.query({ id: sent.task.id }).catch((e: unknown) => e);
    expect(hidden instanceof TRPCClientError && hidden.data?.a2a.code).toBe(-32001);
    expect((await bob.ListTasks.query({})).tasks).toEqual([]);
    const stream = await new Promise((resolve) => {
      bob.SubscribeToTask.subscribe({ id: sent.task.id }, { onData: resolve, onError: resolve });
    });
    expect(stream instanceof TRPCClientError && stream.data?.a2a.code).toBe(-32001);
    expect((await alice.ListTasks.query({})).tasks.map((t) => t.id)).toEqual([sent.task.id]);
  });

  it('takes a bearer token through the same hooks', async () => {
    await start({ auth: { authenticate: bearerAuth((token) => (token === 'good-token' ? { id: 'carol' } : undefined)) } });
    const carol = client({ headers: { authorization: 'Bearer good-token' } });
    const sent = await carol.SendMessage.mutate({ message: userMessage('echo hi') });
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    const refused = await raw({ authorization: 'Bearer expired' });
    expect(await refused.closed).toEqual({ code: 4401, reason: 'UNAUTHENTICATED: The bearer token is not valid or has expired' });
  });

  it('refuses a connection without credentials (close 4401) before any call runs', async () => {
    await start();
    const anonymous = await raw({});
    anonymous.send({ id: 1, method: 'mutation', params: { path: 'SendMessage', input: { message: userMessage('echo sneaky') } } });
    const closed = await anonymous.closed;
    expect(closed.code).toBe(4401);
    expect(closed.reason).toMatch(/^UNAUTHENTICATED: .*x-api-key/);
    expect((await service.unary('ListTasks', {}, { principal: { id: 'alice' } })).tasks).toEqual([]);
    expect(await service.unary('ListTasks', {})).toMatchObject({ totalSize: 0 });
  });

  it('refuses a wrong key sent as connection params (close 4401)', async () => {
    await start();
    const socket = await RawSocket.open(`${server.url}?connectionParams=1`);
    cleanups.push(() => socket.close());
    socket.send({ method: 'connectionParams', data: { 'x-api-key': 'stolen' } });
    expect(await socket.closed).toEqual({ code: 4401, reason: 'UNAUTHENTICATED: The API key is not valid; send a valid key in x-api-key' });
  });

  it('serves anonymous callers when auth is optional, and still refuses bad credentials', async () => {
    await start({ auth: { authenticate: apiKeyAuth({ 'key-alice': 'alice' }), required: false } });
    const anonymous = client({});
    expect(await anonymous.ListTasks.query({})).toMatchObject({ tasks: [] });
    expect((await (await raw({ 'x-api-key': 'nope' })).closed).code).toBe(4401);
  });

  it('speaks A2A 1.0: a2a-version 1.0 is served, 0.3 is refused with VersionNotSupported (close 4400)', async () => {
    service = referenceService();
    server = await serveWebSocket({ service });
    const current = client({ headers: { 'a2a-version': '1.0' } });
    expect(await current.ListTasks.query({})).toMatchObject({ tasks: [] });
    const old = await raw({ 'a2a-version': '0.3' });
    const closed = await old.closed;
    expect(closed.code).toBe(4400);
    expect(closed.reason).toMatch(/^VERSION_NOT_SUPPORTED: A2A 0.3 is not served over WebSocket/);
  });

  it('reads a2a-version as Major.Minor: 1.0.3 is 1.0, a bare 1 is refused (close 4400)', async () => {
    service = referenceService();
    server = await serveWebSocket({ service });
    expect(await client({ headers: { 'a2a-version': '1.0.3' } }).ListTasks.query({})).toMatchObject({ tasks: [] });
    const bare = await (await raw({ 'a2a-version': '1' })).closed;
    expect([bare.code, bare.reason]).toEqual([4400, expect.stringMatching(/^VERSION_NOT_SUPPORTED: .*Major\.Minor/)]);
  });
});
