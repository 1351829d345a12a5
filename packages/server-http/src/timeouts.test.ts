import { connect, type Socket } from 'node:net';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { serveA2A } from './serve.js';
import type { TestServer } from './test-kit.js';
import { call, frames, gatedAgent, startServer, userMessage } from './test-kit.js';

/** Short bounds, so that the server gives up on slow clients within a test. */
const TIMEOUTS = { headersMs: 200, requestMs: 400, keepAliveMs: 100 };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A raw TCP connection to the server, and everything it received once the server closed it. */
function rawConnection(port: number): { socket: Socket; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
}

/** Writes `piece` every 50 ms until the connection closes (a client that trickles its request). */
function trickle(socket: Socket, piece: string): void {
  const timer = setInterval(() => socket.write(piece), 50);
  socket.once('close', () => clearInterval(timer));
}

describe('serveA2A cuts slow and idle connections', () => {
  it('a connection that trickles its request head gets 408 and is closed, and the server serves on', async () => {
    server = await startServer({ timeouts: TIMEOUTS });
    const { socket, closed } = rawConnection(server.port);
    socket.write('POST /a2a/jsonrpc HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    trickle(socket, 'x-slow: 1\r\n');
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    expect((await call(server.rpcUrl, 'ListTasks', {})).result.tasks).toEqual([]);
  });

  it('a connection that never sends a byte is closed', async () => {
    server = await startServer({ timeouts: TIMEOUTS });
    const { closed } = rawConnection(server.port);
    expect(await closed).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('a request whose body trickles in is cut before it is answered, and starts no task', async () => {
    server = await startServer({ timeouts: TIMEOUTS });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('echo never') } });
    const { socket, closed } = rawConnection(server.port);
    socket.write(`POST /a2a/jsonrpc HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: ${body.length}\r\n\r\n`);
    let sent = 0;
    const timer = setInterval(() => sent < body.length - 1 && socket.write(body[sent++]!), 50);
    socket.once('close', () => clearInterval(timer));
    expect(await closed).not.toMatch(/^HTTP\/1\.1 200 /);
    expect((await call(server.rpcUrl, 'ListTasks', {})).result.tasks).toEqual([]);
  });

  it('an idle keep-alive connection is closed after its answer', async () => {
    server = await startServer({ timeouts: TIMEOUTS });
    const { socket, closed } = rawConnection(server.port);
    socket.write('GET /.well-known/agent-card.json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    const received = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.toLowerCase()).toContain('keep-alive');
  });

  it('an SSE answer is not limited: it streams on after slower requests have been cut', async () => {
    const gated = gatedAgent();
    server = await startServer({ agent: gated.agent, timeouts: TIMEOUTS });
    const response = await fetch(`${server.restUrl}/message:stream`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/a2a+json' },
      body: JSON.stringify({ message: userMessage('wait for the gate') }),
    });
    const events = frames(response.body!);
    expect((await events.next()).value?.data).toContain('"task"');
    await gated.started;
    // A request begun after the stream, and cut for being slower than requestMs: the stream is older than that now.
    const probe = rawConnection(server.port);
    probe.socket.write('POST /a2a/rest/message:send HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    trickle(probe.socket, 'x-slow: 1\r\n');
    await probe.closed;
    gated.release();
    const states: string[] = [];
    for await (const frame of events) if (frame.data) states.push(JSON.parse(frame.data).statusUpdate?.status.state);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a request bound shorter than the head bound', async () => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: async (ctx) => ctx.complete('ok') });
    await expect(serveA2A({ service, timeouts: { headersMs: 500, requestMs: 100 } })).rejects.toThrow(/requestMs at least headersMs/);
    await service.close();
  });
});
