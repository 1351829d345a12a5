import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Agent, CallContext, StreamEvent, StreamMethodName } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createA2AHandler } from './handler.js';
import type { A2AServer } from './serve.js';
import { serveA2A } from './serve.js';
import type { Frame, TestServer } from './test-kit.js';
import { CARD, call, collect, deferred, frames, gatedAgent, rpc, startServer, userMessage } from './test-kit.js';

/** A service that counts how many stream events a transport has pulled from it. */
class CountingService extends TaskService {
  pulled = 0;
  override async stream(method: StreamMethodName, params: unknown, context?: CallContext): Promise<AsyncIterable<StreamEvent>> {
    const events = await super.stream(method, params, context);
    const count = () => this.pulled++;
    return (async function* () {
      for await (const event of events) {
        count();
        yield event;
      }
    })();
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

async function serve(options: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const server = await startServer(options);
  cleanup.push(() => server.close());
  return server;
}

const streamRequest = (text: string, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'SendStreamingMessage', params: { message: userMessage(text) } });
const artifactText = (data: any): string | undefined => data?.result?.artifactUpdate?.artifact.parts[0].text ?? data?.artifactUpdate?.artifact.parts[0].text;

/** Six artifact chunks, in two halves: the second half waits for `step`. */
function steppedAgent(step: Promise<void>): Agent {
  return async (ctx) => {
    for (let i = 1; i <= 6; i++) {
      if (i === 4) await step;
      await ctx.artifact({ name: 'out', text: `part ${i}` }, { append: i > 1, lastChunk: i === 6 });
    }
    await ctx.complete('done');
  };
}

describe('SSE streams', () => {
  it('send a heartbeat comment while the task is quiet, then carry on', async () => {
    const gate = gatedAgent();
    const server = await serve({ agent: gate.agent, heartbeatMs: 10 });
    const response = await rpc(server.rpcUrl, streamRequest('wait'));
    const seen: Frame[] = [];
    for await (const frame of frames(response.body!)) {
      seen.push(frame);
      if (frame.comment === 'heartbeat') gate.release();
    }
    const comments = seen.filter((f) => f.comment !== undefined);
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((f) => f.comment === 'heartbeat' && f.data === undefined)).toBe(true);
    expect(JSON.parse(seen.at(-1)!.data!).result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('resume a dropped stream from Last-Event-ID with no gap and no duplicate (JSON-RPC and HTTP+JSON)', async () => {
    for (const binding of ['jsonrpc', 'rest'] as const) {
      const step = deferred();
      const server = await serve({ agent: steppedAgent(step.promise) });
      const abort = new AbortController();
      const response = await fetch(server.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify(streamRequest('go')),
        signal: abort.signal,
      });
      const before: { id: number; data: any }[] = [];
      for await (const frame of frames(response.body!)) {
        before.push({ id: Number(frame.id), data: JSON.parse(frame.data!) });
        if (artifactText(before.at(-1)!.data) === 'part 3') break;
      }
      abort.abort();
      const taskId = before[0]!.data.result.task.id;
      const lastId = before.at(-1)!.id;
      step.resolve();
      await server.service.idle();
      const resumed =
        binding === 'jsonrpc'
          ? await collect(await rpc(server.rpcUrl, { jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }, { 'last-event-id': String(lastId) }))
          : await collect(await fetch(`${server.restUrl}/tasks/${taskId}:subscribe`, { headers: { 'a2a-version': '1.0', 'last-event-id': String(lastId) } }));
      expect(resumed.map((e) => e.id)).toEqual(resumed.map((_, i) => lastId + 1 + i));
      const texts = [...before, ...resumed].map((e) => artifactText(e.data)).filter(Boolean);
      expect(texts).toEqual(['part 1', 'part 2', 'part 3', 'part 4', 'part 5', 'part 6']);
      const last = resumed.at(-1)!.data;
      expect((last.result ?? last).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('refuse a Last-Event-ID that is not a sequence number with InvalidParams', async () => {
    const server = await serve();
    const task = (await call(server.rpcUrl, 'SendMessage', { message: userMessage('quote') })).result.task;
    const answer = await (await rpc(server.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }, { 'last-event-id': 'abc' })).json();
    expect(answer.error.code).toBe(-32602);
  });

  it('keep running the task, and keep its final state, when the client disconnects', async () => {
    const gate = gatedAgent();
    const server = await serve({ agent: gate.agent });
    const abort = new AbortController();
    const response = await rpc(server.rpcUrl, streamRequest('wait'), {});
    const reader = response.body!.getReader();
    await reader.read();
    const taskId = await gate.started;
    await reader.cancel();
    abort.abort();
    await vi.waitFor(() => expect(server.handler.openStreams).toBe(0));
    gate.release();
    await server.service.idle();
    const task = (await call(server.rpcUrl, 'GetTask', { id: taskId })).result;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(gate.signals[0]!.aborted).toBe(false);
  });
});

describe('SSE backpressure', () => {
  const COUNT = 400;
  const blob = 'x'.repeat(64 * 1024);
  /** 400 status updates of 64 KiB each (26 MB in all); `emitted` resolves once the last is committed. */
  function bigService() {
    const emitted = deferred();
    const agent: Agent = async (ctx) => {
      for (let i = 1; i <= COUNT; i++) await ctx.working(undefined, { metadata: { i, blob } });
      emitted.resolve();
      await ctx.complete('done');
    };
    const service = new CountingService({ store: createMemoryTaskStore(), agent, card: CARD });
    cleanup.push(() => service.close());
    return { service, emitted: emitted.promise };
  }
  /** Lets the event loop turn, so a server that ignored backpressure would keep pulling and writing. */
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('node host: a reader that stops reading makes the server stop pulling events (no unbounded buffering)', async () => {
    const { service, emitted } = bigService();
    const server: A2AServer = await serveA2A({ service });
    cleanup.push(() => server.close());
    let response: ServerResponse | undefined;
    server.server.on('request', (_req, res: ServerResponse) => (response = res));
    const socket = connect(server.port, '127.0.0.1');
    cleanup.unshift(async () => void socket.destroy());
    await once(socket, 'connect');
    socket.pause();
    const body = JSON.stringify(streamRequest('big'));
    socket.write(
      `POST /a2a/jsonrpc HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await emitted;
    // Stalled: the server waits for 'drain' and pulls nothing more while the event loop turns.
    let stalledAt = -1;
    while (stalledAt !== service.pulled || !response?.writableNeedDrain) {
      stalledAt = service.pulled;
      await turns(50);
    }
    expect(stalledAt).toBeLessThan(COUNT / 2);
    expect(response!.writableLength).toBeLessThan(2 * blob.length);

    const received: string[] = [];
    const completed = deferred();
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => {
      const tail = received.at(-1)?.slice(-40) ?? '';
      received.push(data);
      if ((tail + data).includes('TASK_STATE_COMPLETED')) completed.resolve();
    });
    socket.resume();
    await completed.promise;
    socket.destroy();
    const text = received.join('');
    const numbers = [...text.matchAll(/"metadata":\{"i":(\d+)/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
  });

  it('fetch host: the body is pulled one event at a time, as the reader asks', async () => {
    const { service, emitted } = bigService();
    const handler = createA2AHandler({ service });
    const response = await handler.fetch(
      new Request('http://agent.test/a2a/jsonrpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify(streamRequest('big')),
      }),
    );
    const reader = response.body!.getReader();
    await reader.read();
    await emitted;
    await turns(50);
    expect(service.pulled).toBeLessThanOrEqual(2);
    let reads = 1;
    while (!(await reader.read()).done) reads++;
    expect(reads).toBe(COUNT + 2);
    expect(service.pulled).toBe(COUNT + 2);
  });
});
