// A WebSocket that cannot send headers (a browser's) still asks for A2A 1.1: the transport sends the version as the
// upgrade URL's A2A-Version query parameter, the request parameter the specification allows in place of the header.
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent, Task } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { attachWebSocket } from '@taskwire/server-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { WebSocketClass } from '../src/transport/ws.js';
import { wsTransport } from '../src/transport/ws.js';

/** A real WebSocket with a browser's constructor: a URL and subprotocols, never headers (anything else is a SyntaxError). */
class BrowserWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: unknown) {
    if (protocols !== undefined && typeof protocols !== 'string' && !Array.isArray(protocols)) {
      throw new SyntaxError('A browser WebSocket takes subprotocols only, no headers');
    }
    super(url, protocols as string | string[] | undefined);
  }
}

const agent: Agent = async (ctx) => {
  await ctx.working();
  await ctx.complete('done');
};

/** A WebSocket endpoint of `service` on a server that notes every upgrade request. */
async function serve(service: TaskService) {
  const upgrades: IncomingMessage[] = [];
  const server = createServer();
  server.on('upgrade', (request: IncomingMessage) => upgrades.push(request));
  const endpoint = attachWebSocket({ service, server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/ws`;
  const close = async () => {
    await endpoint.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, upgrades, close };
}

let next: Awaited<ReturnType<typeof serve>>;
let plain: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  next = await serve(new TaskService({ store: createMemoryTaskStore(), agent, protocol: { v1_1: true } }));
  plain = await serve(new TaskService({ store: createMemoryTaskStore(), agent }));
});
afterAll(async () => {
  await next.close();
  await plain.close();
});

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] });
const taskOf = (result: object): Task => ('task' in result ? (result.task as Task) : expect.fail('expected a task'));
const browser = BrowserWebSocket as unknown as WebSocketClass;

describe('the A2A version over a WebSocket that cannot send headers', () => {
  it('a2a-version goes in the upgrade URL as A2A-Version, not as a header: 1.1 answers carry generations', async () => {
    const transport = wsTransport({ url: next.url, headers: { 'a2a-version': '1.1' }, WebSocket: browser });
    try {
      const task = taskOf(await transport.unary('SendMessage', { message: message() }));
      expect(task.generation).toBe(3);
      expect((await transport.unary('ListTasks', {})).tasks.map((t) => t.generation)).toEqual([3]);
      const upgrade = next.upgrades.at(-1)!;
      expect(upgrade.headers['a2a-version']).toBeUndefined();
      expect(new URL(upgrade.url!, 'http://x').searchParams.get('A2A-Version')).toBe('1.1');
    } finally {
      await transport.close();
    }
  });

  it('the parameter alone negotiates: without it 1.0, and a service without 1.1 refuses it with VersionNotSupported', async () => {
    const v10 = wsTransport({ url: next.url, WebSocket: browser });
    const asked = wsTransport({ url: `${plain.url}?A2A-Version=1.1`, WebSocket: browser });
    try {
      expect(taskOf(await v10.unary('SendMessage', { message: message() })).generation).toBeUndefined();
      await expect(asked.unary('GetTask', { id: 'any' })).rejects.toMatchObject({ kind: 'VersionNotSupported' });
    } finally {
      await Promise.all([v10.close(), asked.close()]);
    }
  });
});
