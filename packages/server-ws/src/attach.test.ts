import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TaskService } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { WebSocketEndpoint } from './attach.js';
import { attachWebSocket } from './attach.js';
import type { ConnectionSlots } from './connection.js';
import { openStream } from './streams.js';
import { RawSocket, referenceService, typedClient, userMessage } from './test-kit.js';

/** Resolves the status of a refused upgrade (or 101 when it was accepted). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.on('error', () => {});
    socket.once('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    socket.once('open', () => {
      resolve(101);
      socket.terminate();
    });
  });
}

describe('attachWebSocket on a shared node:http server', () => {
  let service: TaskService;
  let server: Server;
  let endpoint: WebSocketEndpoint;
  let base: string;

  beforeEach(async () => {
    service = referenceService();
    server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ path: request.url }));
    });
    endpoint = attachWebSocket({ server, service });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await endpoint.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.close();
  });

  it('serves /a2a/ws next to the HTTP routes of the same server', async () => {
    const http = (await (await fetch(`http://${base}/.well-known/agent-card.json`)).json()) as { path: string };
    expect(http.path).toBe('/.well-known/agent-card.json');
    const trpc = typedClient(`ws://${base}/a2a/ws`);
    const sent = await trpc.client.SendMessage.mutate({ message: userMessage('echo shared') });
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(endpoint.connections).toBe(1);
    await trpc.close();
  });

  it('refuses upgrades on other paths with 404, unless another upgrade listener takes them', async () => {
    expect(await upgradeStatus(`ws://${base}/elsewhere`)).toBe(404);
    const other = new WebSocketServer({ noServer: true });
    server.on('upgrade', (request, socket, head) => {
      if (request.url === '/other') other.handleUpgrade(request, socket, head, (ws) => ws.close());
    });
    expect(await upgradeStatus(`ws://${base}/other`)).toBe(101);
    expect(await upgradeStatus(`ws://${base}/a2a/ws?connectionParams=1`)).toBe(101);
    other.close();
  });

  it('writes the replies of calls answered in the same turn in one socket write, each intact and in its own frame', async () => {
    let writes = 0;
    server.prependListener('upgrade', (_request: unknown, socket: Socket) => {
      const counted = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
      for (const name of ['_write', '_writev'] as const) {
        const write = counted[name].bind(socket);
        counted[name] = (...args) => (writes++, write(...args));
      }
    });
    const raw = await RawSocket.open(`ws://${base}/a2a/ws`);
    writes = 0;
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    raw.send(ids.map((id) => ({ id, method: 'mutation', params: { path: 'SendMessage', input: { message: userMessage(`echo ${id}`) } } })));
    const replies = await Promise.all(ids.map((id) => raw.answer(id)));
    const texts = replies.map((r) => (r.result?.data as { task: { status: { message: { parts: { text: string }[] } } } }).task.status.message.parts[0]!.text);
    expect(texts).toEqual(ids.map(String));
    expect(writes).toBe(1);
    raw.close();
  });

  it('close() ends every connection with 1001 and takes no more upgrades; the tasks go on', async () => {
    const raw = await RawSocket.open(`ws://${base}/a2a/ws`);
    raw.send({ id: 1, method: 'subscription', params: { path: 'SendStreamingMessage', input: { message: userMessage('slow 3 20') } } });
    const first = await raw.next((f) => f.id === 1 && f.result?.type === 'data');
    const taskId = (first.result?.data as { data: { task: { id: string } } }).data.task.id;
    await endpoint.close();
    expect((await raw.closed).code).toBe(1001);
    expect(await upgradeStatus(`ws://${base}/a2a/ws`)).not.toBe(101); // node:http answers it as a plain request now
    await service.idle();
    expect((await service.unary('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
    expect(service.engine.hub.count(taskId)).toBe(0);
  });
});

describe('openStream', () => {
  it('gives back its stream slot and the task subscription when stopped before its first event', async () => {
    const service = referenceService();
    const sent = await service.unary('SendMessage', { message: userMessage('slow 3 20'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    let open = 0;
    const slots: ConnectionSlots = { signal: new AbortController().signal, acquire: () => void open++, release: () => void open-- };
    const events = await openStream(service, 'SubscribeToTask', { id: sent.task.id }, { call: {}, slots }, undefined);
    expect([open, service.engine.hub.count(sent.task.id)]).toEqual([1, 1]);
    await events.return!();
    expect([open, service.engine.hub.count(sent.task.id)]).toEqual([0, 0]);
    await service.close();
  });

  it('gives the slot back when the service refuses the stream', async () => {
    const service = referenceService();
    let open = 0;
    const slots: ConnectionSlots = { signal: new AbortController().signal, acquire: () => void open++, release: () => void open-- };
    await expect(openStream(service, 'SubscribeToTask', { id: 'nope' }, { call: {}, slots }, undefined)).rejects.toMatchObject({ code: -32001 });
    expect(open).toBe(0);
    await service.close();
  });
});
