import { connect } from 'node:net';
import type { TaskService } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { referenceService, typedClient, userMessage } from './test-kit.js';

describe('serveWebSocket bounds the upgrade request', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  afterEach(async () => {
    await server.close();
    await service.close();
  });

  it('cuts a client that trickles its upgrade request (408), while an established connection outlives the bound', async () => {
    service = referenceService();
    server = await serveWebSocket({ service, handshakeTimeoutMs: 200 });
    const url = new URL(server.url);
    const trpc = typedClient(server.url);
    try {
      // Established before the slow client starts, and used again after it was cut: longer than the bound.
      expect(await trpc.client.SendMessage.mutate({ message: userMessage('echo before') })).toHaveProperty('task');
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nupgrade: websocket\r\nconnection: Upgrade\r\n`);
      const timer = setInterval(() => socket.write('x-slow: 1\r\n'), 50);
      await closed;
      clearInterval(timer);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      const after = await trpc.client.SendMessage.mutate({ message: userMessage('echo after') });
      expect('task' in after && after.task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      trpc.close();
    }
  });
});
