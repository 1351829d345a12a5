import { connect as connectTcp } from 'node:net';
import type { Agent } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GRPC_TIMEOUTS, serveGrpc } from '../src/serve.js';
import { closeAfterTest, connect, referenceService } from './helpers.js';

/** A bound short enough for a test. */
const IDLE_MS = 200;

/** A raw TCP connection to `url` (`host:port`) that sends `bytes` (maybe nothing); resolves once the server closes it. */
function rawConnection(url: string, bytes: string): Promise<void> {
  const [host, port] = [url.slice(0, url.lastIndexOf(':')), Number(url.slice(url.lastIndexOf(':') + 1))];
  const socket = connectTcp(port, host, () => socket.write(bytes));
  socket.on('error', () => undefined);
  socket.resume(); // read what the server sends (its SETTINGS, then GOAWAY), so that its end of the connection is seen
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

async function serveWithIdle(agent?: Agent) {
  const service = referenceService(agent ? { agent } : {});
  const server = await serveGrpc({ service, timeouts: { idleMs: IDLE_MS } });
  closeAfterTest(() => server.close(0));
  return { service, server };
}

describe('serveGrpc bounds idle connections', () => {
  it('has short defaults: idle connections go after two minutes, dead peers are found by pings', () => {
    expect(DEFAULT_GRPC_TIMEOUTS).toEqual({ idleMs: 120_000, keepaliveMs: 60_000, keepaliveTimeoutMs: 20_000 });
  });

  it.each([
    ['sends nothing', ''],
    ['stops half-way through the HTTP/2 preface', 'PRI * HTTP/2.0\r\n'],
    ['sends the preface, then nothing', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ])('closes a connection that %s', async (_what, bytes) => {
    const { server } = await serveWithIdle();
    await rawConnection(server.url, bytes);
  });

  it('never cuts a call in progress; a client whose idle connection was closed reconnects on its next call', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const working = new Promise<void>((resolve) => (started = resolve));
    const { server } = await serveWithIdle(async (ctx) => {
      if (ctx.text !== 'wait') return ctx.complete('quick');
      await ctx.working('waiting');
      started();
      await gate;
      await ctx.complete('released');
    });
    const client = connect(server.url);
    const states: string[] = [];
    const streamed = (async () => {
      for await (const event of client.stream('SendStreamingMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'wait' }] } })) {
        const response = event.response;
        if ('statusUpdate' in response) states.push(response.statusUpdate.status.state);
      }
    })();
    await working;
    // A silent connection opened after the stream started is closed once idle: the stream has been open longer than the bound by then.
    await rawConnection(server.url, '');
    release();
    await streamed;
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');

    // The client's connection is idle now; once a later idle connection has been closed, so has the client's.
    await rawConnection(server.url, '');
    const again = await client.unary('SendMessage', { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'quick' }] } });
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
