import type { TaskService } from '@taskwire/core';
import { A2AError, bearerAuth } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createA2ARouter } from './router.js';
import type { WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { RawSocket, referenceService } from './test-kit.js';

const EXPIRED_CLOSE = { code: 4401, reason: 'UNAUTHENTICATED: The credential of this connection has expired; reconnect with a fresh one' };

describe('a connection whose principal expires (expiresAt, a JWT exp)', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  /** Bearer tokens and when the principal each names expires. */
  const tokens = new Map<string, number | undefined>();
  const sockets: RawSocket[] = [];
  const connect = async (token: string) => {
    const socket = await RawSocket.open(server.url, { authorization: `Bearer ${token}` });
    sockets.push(socket);
    return socket;
  };

  beforeEach(async () => {
    service = referenceService();
    const auth = bearerAuth((token) => (tokens.has(token) ? { id: 'alice', ...(tokens.get(token) !== undefined && { expiresAt: tokens.get(token) }) } : undefined));
    server = await serveWebSocket({ service, auth: { authenticate: auth } });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await server.close();
    await service.close();
  });

  it('answers calls until then, and is closed then with 4401 and a reason that says to reconnect with a fresh credential', async () => {
    tokens.set('short', Date.now() + 1_500);
    const socket = await connect('short');
    socket.send({ id: 1, method: 'query', params: { path: 'ListTasks', input: {} } });
    expect((await socket.answer(1)).result?.data).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    expect(await socket.closed).toEqual(EXPIRED_CLOSE);
  });

  it('refuses a connection whose principal has already expired', async () => {
    tokens.set('stale', Date.now() - 1);
    expect(await (await connect('stale')).closed).toEqual(EXPIRED_CLOSE);
  });

  it('keeps a connection whose principal names no expiry', async () => {
    tokens.set('forever', undefined);
    const socket = await connect('forever');
    socket.send({ id: 1, method: 'query', params: { path: 'ListTasks', input: {} } });
    expect((await socket.answer(1)).error).toBeUndefined();
  });

  it('is closed with 4401 and a reason that names the withdrawal when its principal is withdrawn (its token signing key left the issuer key set)', async () => {
    const withdrawal = new AbortController();
    const server2 = await serveWebSocket({ service, auth: { authenticate: () => ({ id: 'alice', withdrawn: withdrawal.signal }) } });
    try {
      const socket = await RawSocket.open(server2.url, { authorization: 'Bearer any' });
      sockets.push(socket);
      socket.send({ id: 1, method: 'query', params: { path: 'ListTasks', input: {} } });
      expect((await socket.answer(1)).error).toBeUndefined();
      withdrawal.abort();
      expect(await socket.closed).toEqual({ code: 4401, reason: 'UNAUTHENTICATED: The key that signed this credential was withdrawn by its issuer; reconnect with a fresh one' });
      const caller = createA2ARouter(service).createCaller({ call: { principal: { id: 'alice', withdrawn: withdrawal.signal } } });
      await expect(caller.ListTasks({})).rejects.toMatchObject({ cause: { kind: 'Unauthenticated', metadata: { tokenError: 'key_withdrawn' } } });
    } finally {
      await server2.close();
    }
  });

  it('refuses a call made after the expiry, before the close (Unauthenticated, tokenError expired)', async () => {
    const caller = createA2ARouter(service).createCaller({ call: { principal: { id: 'alice' } }, expiresAt: Date.now() - 1 });
    const error = await caller.ListTasks({}).then(
      () => undefined,
      (e: { cause?: unknown }) => e.cause,
    );
    expect(A2AError.is(error) && [error.kind, error.metadata['tokenError']]).toEqual(['Unauthenticated', 'expired']);
    await expect(caller.SubscribeToTask({ id: 'any' })).rejects.toMatchObject({ cause: { kind: 'Unauthenticated' } });
  });
});
