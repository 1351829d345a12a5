import { jwtAuth } from '@taskwire/auth';
import type { TestIssuer } from '@taskwire/auth/testing';
import { startTestIssuer } from '@taskwire/auth/testing';
import type { TaskService } from '@taskwire/core';
import { A2AError, createMemoryTaskStore, TaskService as Service } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { WebSocketServerHandle } from '@taskwire/server-ws';
import { serveWebSocket, wsInterface } from '@taskwire/server-ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { tokenCallback } from '../auth/token-provider.js';
import type { WebSocketClass, WsTransport } from './ws.js';
import { wsTransport } from './ws.js';

const AUDIENCE = 'https://agent.taskwire.test/ws';

/** A `ws` class that hands every socket's close (code and reason) to `closes`, in the order the sockets opened. */
function closeRecorder() {
  const closes: Promise<{ code: number; reason: string }>[] = [];
  const Recording = class extends WebSocket {
    constructor(url: string, options?: object) {
      super(url, options);
      closes.push(new Promise((resolve) => this.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))));
    }
  };
  return { closes, WebSocket: Recording as unknown as WebSocketClass };
}

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

describe('wsTransport with JWTs that expire (jwtAuth on the server)', () => {
  let issuer: TestIssuer;
  let service: TaskService;
  let server: WebSocketServerHandle;
  const transports: WsTransport[] = [];
  const open = (options: Omit<Parameters<typeof wsTransport>[0], 'url'>) => {
    const transport = wsTransport({ url: server.url, retryDelayMs: () => 200, ...options });
    transports.push(transport);
    return transport;
  };
  /** A token for alice that expires `seconds` from now (rounded down to a whole second, as exp is). */
  const token = (seconds: number, audience = AUDIENCE) => issuer.sign({ sub: 'alice', aud: audience, exp: Math.floor(Date.now() / 1000) + seconds });

  beforeEach(async () => {
    issuer = await startTestIssuer();
    service = new Service({ store: createMemoryTaskStore(), agent: referenceAgent, card: referenceAgentCard([wsInterface('ws://127.0.0.1/a2a/ws')]) });
    server = await serveWebSocket({ service, auth: jwtAuth({ issuer: issuer.issuer, audience: AUDIENCE }) });
  });
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
    await server.close();
    await service.close();
    await issuer.close();
  });

  it('the server closes the connection at exp (4401), and later calls are Unauthenticated', async () => {
    const { closes, WebSocket } = closeRecorder();
    const client = open({ WebSocket, headers: { authorization: `Bearer ${await token(2)}` } });
    expect((await client.unary('ListTasks', {})).tasks).toEqual([]);
    expect(await closes[0]).toEqual({ code: 4401, reason: 'UNAUTHENTICATED: The credential of this connection has expired; reconnect with a fresh one' });
    const refused = await client.unary('ListTasks', {}).catch((e: unknown) => e);
    expect(A2AError.is(refused) && [refused.kind, refused.code]).toEqual(['Unauthenticated', -32030]);
  });

  it('with a token provider, reconnects after the expiry with a fresh token and goes on as the same principal', async () => {
    const { closes, WebSocket } = closeRecorder();
    const asked: boolean[] = [];
    const client = open({ WebSocket, token: tokenCallback((fresh) => (asked.push(fresh), token(fresh ? 600 : 2))) });
    const sent = await client.unary('SendMessage', message('echo before'));
    if (!('task' in sent)) throw new Error('expected a task');
    expect((await closes[0])?.code).toBe(4401);
    expect((await client.unary('GetTask', { id: sent.task.id })).id).toBe(sent.task.id);
    expect(asked).toEqual([false, true]);
    expect(closes).toHaveLength(2);
  });

  it('with a token provider, a call or stream refused as Unauthenticated is made once more with a fresh token', async () => {
    const asked: boolean[] = [];
    // The cached token is for another audience: the connection is refused, the retry carries a good one.
    const provide = (fresh: boolean) => (asked.push(fresh), token(600, fresh ? AUDIENCE : 'https://another-agent.example'));
    const unary = open({ token: tokenCallback(provide) });
    expect((await unary.unary('ListTasks', {})).tasks).toEqual([]);
    expect(asked).toEqual([false, true]);
    asked.length = 0;
    const streaming = open({ token: tokenCallback(provide) });
    const states: string[] = [];
    for await (const event of streaming.stream('SendStreamingMessage', message('echo streamed'))) {
      if ('task' in event.response) states.push(event.response.task.status.state);
    }
    expect(states[0]).toBe('TASK_STATE_SUBMITTED');
    expect(asked).toEqual([false, true]);
  });

  it('with a token provider that keeps giving refused tokens, a call fails with Unauthenticated after one retry', async () => {
    const asked: boolean[] = [];
    const client = open({ token: tokenCallback((fresh) => (asked.push(fresh), token(600, 'https://another-agent.example'))) });
    const refused = await client.unary('ListTasks', {}).catch((e: unknown) => e);
    expect(A2AError.is(refused) && refused.kind).toBe('Unauthenticated');
    expect(asked).toEqual([false, true]);
  });
});
