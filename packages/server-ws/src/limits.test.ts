import type { Socket } from 'node:net';
import type { Logger, TaskService } from '@taskwire/core';
import { TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeOptions, WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { RawSocket, referenceService, typedClient, userMessage } from './test-kit.js';

/** A logger whose warnings resolve promises, so that tests wait on them. */
function watchingLogger() {
  const warnings: { message: string; meta?: Record<string, unknown> }[] = [];
  let notify: (() => void) | undefined;
  const logger: Logger = {
    warn(meta, message) {
      warnings.push({ message: message ?? '', meta });
      notify?.();
    },
    error() {},
  };
  const nextWarning = () => (warnings.length > 0 ? Promise.resolve(warnings[0]!) : new Promise<void>((r) => (notify = r)).then(() => warnings[0]!));
  return { logger, nextWarning };
}

describe('per-connection bounds', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  const cleanups: (() => unknown)[] = [];

  async function start(options: Omit<ServeOptions, 'service'>) {
    service = referenceService();
    server = await serveWebSocket({ service, ...options });
  }
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await server.close();
    await service.close();
  });

  it('disconnects a reader that stops reading once its buffered bytes pass the bound; its task still completes', async () => {
    const maxBufferedBytes = 256 * 1024;
    const { logger, nextWarning } = watchingLogger();
    await start({ limits: { maxBufferedBytes }, logger });
    const control = typedClient(server.url);
    const reader = await RawSocket.open(server.url);
    cleanups.push(() => control.close(), () => reader.close());
    // The reader stops reading: everything the server sends it piles up, first in the
    // kernel's socket buffers (about 4 MB on loopback here), then in the server's memory.
    (reader.socket as unknown as { _socket: Socket })._socket.pause();
    const sent = await control.client.SendMessage.mutate({ message: userMessage('slow 500 1'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const taskId = sent.task.id;
    // 60 streams of the task on the paused connection: over 25 MB if the server kept it all.
    reader.send(Array.from({ length: 60 }, (_, i) => ({ id: i + 1, method: 'subscription', params: { path: 'SubscribeToTask', input: { id: taskId } } })));

    const warning = await nextWarning();
    expect(warning.message).toContain('does not keep up');
    const buffered = warning.meta?.bufferedAmount as number;
    expect(buffered).toBeGreaterThan(maxBufferedBytes);
    expect(buffered).toBeLessThan(2 * maxBufferedBytes); // the bound plus at most one frame
    (reader.socket as unknown as { _socket: Socket })._socket.resume();
    expect((await reader.closed).code).toBe(1006); // terminated, not a clean close
    expect(server.connections).toBe(1); // the control connection is untouched

    await service.idle();
    const task = await control.client.GetTask.query({ id: taskId, historyLength: 0 });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts).toHaveLength(500);
    expect(service.engine.hub.count(taskId)).toBe(0);
  });

  it('refuses a stream past maxSubscriptions on one connection with TOO_MANY_REQUESTS, and takes one again when a slot frees', async () => {
    await start({ limits: { maxSubscriptions: 2 } });
    const trpc = typedClient(server.url);
    cleanups.push(() => trpc.close());
    const started = (text: string) => {
      const controller = new AbortController();
      const first = new Promise<void>((resolve, reject) => {
        trpc.client.SendStreamingMessage.subscribe({ message: userMessage(text) }, { onData: () => resolve(), onError: reject, signal: controller.signal });
      });
      return { first, stop: () => controller.abort() };
    };
    const a = started('slow 1000 5');
    const b = started('slow 1000 5');
    await Promise.all([a.first, b.first]);

    const refused = await new Promise<unknown>((resolve) => {
      trpc.client.SendStreamingMessage.subscribe({ message: userMessage('echo third') }, { onData: () => resolve('data'), onError: resolve });
    });
    if (!(refused instanceof TRPCClientError)) throw new Error(`expected a refusal, got ${String(refused)}`);
    expect(refused.data?.code).toBe('TOO_MANY_REQUESTS');
    expect(refused.data?.a2a.code).toBe(-32603);
    expect(refused.message).toContain('2 streams open');

    a.stop();
    // The slot frees once the server has ended the stopped stream; a unary call on the same connection comes after it.
    await trpc.client.ListTasks.query({});
    const c = started('echo again');
    await c.first;
    b.stop();
  });

  it('pings quiet connections: a peer that answers stays, one that does not is dropped', async () => {
    await start({ keepAlive: { pingMs: 20, pongWaitMs: 100 } });
    const answering = await RawSocket.open(server.url, {}, { answerPings: true });
    const silent = await RawSocket.open(server.url);
    cleanups.push(() => answering.close(), () => silent.close());

    expect(await silent.next((f) => f.ping === 'PING')).toEqual({ ping: 'PING' });
    expect((await silent.closed).code).toBe(1006);

    for (let i = 0; i < 3; i++) await answering.next((f) => f.ping === 'PING');
    answering.send({ id: 1, method: 'query', params: { path: 'ListTasks', input: {} } });
    expect((await answering.answer(1)).result?.data).toMatchObject({ tasks: [] });
  });

  it('closes a connection that announced connection params but never sent them (4400); one that sent them in time stays', async () => {
    await start({ limits: { connectionParamsTimeoutMs: 100 } });
    const url = `${server.url}?connectionParams=1`;
    const prompt = await RawSocket.open(url);
    prompt.send({ method: 'connectionParams', data: {} });
    const silent = await RawSocket.open(url);
    cleanups.push(() => prompt.close(), () => silent.close());
    const { code, reason } = await silent.closed;
    expect(code).toBe(4400);
    expect(reason).toBe('INVALID_REQUEST: No connection params arrived within 100 ms; send them as the first message');
    // The prompt one opened first, so its deadline has passed too: its params stopped it.
    expect(prompt.socket.readyState).toBe(prompt.socket.OPEN);
    prompt.send({ id: 1, method: 'query', params: { path: 'ListTasks', input: {} } });
    expect((await prompt.next((f) => f.id === 1)).result?.type).toBe('data');
  });
});
