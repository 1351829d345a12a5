import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { StreamResponse } from '@taskwire/core';
import WebSocket from 'ws';
import type { NumberedEvent } from '../support/lifecycle-check.js';

/**
 * A subscriber whose reading the test controls: it can stop reading from
 * its socket (the server then sees a full connection), read on later, or
 * vanish mid-stream by destroying its socket.
 */
export interface RawReader {
  /** Resolves once the server has accepted the subscription (headers, or the tRPC `started` message). */
  readonly started: Promise<void>;
  /** Resolves with every event read, once the stream ends or the reader is destroyed. */
  readonly done: Promise<NumberedEvent[]>;
  /** Resolves once `count` events have been read. */
  received(count: number): Promise<void>;
  /** Stops reading from the socket. */
  pause(): void;
  /** Reads on. */
  resume(): void;
  /** Drops the connection at once, as a client that crashed or lost its network. */
  destroy(): void;
}

/** Counts events and wakes the waiters of {@link RawReader.received}. */
class EventLog {
  readonly events: NumberedEvent[] = [];
  private readonly waiters: Array<{ count: number; resolve(): void }> = [];

  add(event: NumberedEvent): void {
    this.events.push(event);
    for (const waiter of [...this.waiters]) {
      if (this.events.length < waiter.count) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  received(count: number): Promise<void> {
    if (this.events.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/** An SSE request (JSON-RPC or HTTP+JSON) read with `node:http`; `unwrap` turns a `data:` payload into the stream response. */
export function sseReader(
  url: string,
  call: { method: string; headers: Record<string, string>; body?: string },
  unwrap: (data: unknown) => StreamResponse,
): RawReader {
  const log = new EventLog();
  let response: IncomingMessage | undefined;
  let req: ClientRequest;
  let buffer = '';
  const started = new Promise<void>((resolveStarted, rejectStarted) => {
    req = request(url, { method: call.method, headers: call.headers }, (res) => {
      response = res;
      if (res.statusCode !== 200) return rejectStarted(new Error(`the subscription was refused with HTTP ${res.statusCode}`));
      resolveStarted();
    });
    req.on('error', rejectStarted);
    req.end(call.body);
  });
  const done = started.then(
    () =>
      new Promise<NumberedEvent[]>((resolve) => {
        response!.setEncoding('utf8');
        response!.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (\d+)$/m.exec(frame)?.[1];
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (id !== undefined && data !== undefined) log.add({ sequence: Number(id), response: unwrap(JSON.parse(data)) });
          }
        });
        response!.on('close', () => resolve(log.events));
      }),
  );
  done.catch(() => undefined);
  return {
    started,
    done,
    received: (count) => log.received(count),
    pause: () => response?.pause(),
    resume: () => response?.resume(),
    destroy: () => req.destroy(),
  };
}

/** A tRPC subscription on a raw `ws` connection (the socket itself can be paused); `input` is the procedure's input. */
export function wsReader(url: string, headers: Record<string, string>, path: string, input: unknown): RawReader {
  const log = new EventLog();
  const socket = new WebSocket(url, { headers });
  const raw = () => (socket as unknown as { _socket: Socket })._socket;
  let startedResolve: () => void;
  let startedReject: (error: Error) => void;
  const started = new Promise<void>((resolve, reject) => {
    startedResolve = resolve;
    startedReject = reject;
  });
  started.catch(() => undefined);
  const done = new Promise<NumberedEvent[]>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      startedReject(new Error('the connection closed before the subscription started'));
      resolve(log.events);
    });
    socket.on('open', () => socket.send(JSON.stringify({ id: 1, method: 'subscription', params: { path, input } })));
    socket.on('message', (data) => {
      // tRPC sends each tracked event as `{ type: 'data', data: { id: '<sequence>:<taskId>', data: <StreamResponse> } }`.
      const message = JSON.parse(String(data)) as { result?: { type?: string; data?: { id: string; data: StreamResponse } }; error?: unknown };
      if (message.error) return void socket.close();
      if (message.result?.type === 'started') startedResolve();
      const tracked = message.result?.type === 'data' ? message.result.data : undefined;
      if (tracked) log.add({ sequence: Number.parseInt(tracked.id, 10), response: tracked.data });
      if (message.result?.type === 'stopped') socket.close();
    });
  });
  return {
    started,
    done,
    received: (count) => log.received(count),
    pause: () => raw()?.pause(),
    resume: () => raw()?.resume(),
    destroy: () => raw()?.destroy(),
  };
}

/** One raw `ws` connection carrying many tRPC subscriptions, read (or not) as one. */
export interface SharedConnectionReader {
  /** Resolves once every subscription has started. */
  readonly started: Promise<void>;
  /** Resolves with the number of events read over the connection, once it closes. */
  readonly done: Promise<{ events: number; closeCode: number }>;
  pause(): void;
  resume(): void;
}

/** Subscribes to `path` once per input on a single connection (tRPC ids 1..n). */
export function wsSharedReader(url: string, path: string, inputs: readonly unknown[]): SharedConnectionReader {
  const socket = new WebSocket(url);
  const raw = () => (socket as unknown as { _socket: Socket })._socket;
  let events = 0;
  let pending = inputs.length;
  let stopped = 0;
  let startedResolve: () => void;
  const started = new Promise<void>((resolve) => (startedResolve = resolve));
  const done = new Promise<{ events: number; closeCode: number }>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', (closeCode) => resolve({ events, closeCode }));
    socket.on('open', () => inputs.forEach((input, i) => socket.send(JSON.stringify({ id: i + 1, method: 'subscription', params: { path, input } }))));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { result?: { type?: string } };
      if (message.result?.type === 'started' && --pending === 0) startedResolve();
      if (message.result?.type === 'data') events++;
      if (message.result?.type === 'stopped' && ++stopped === inputs.length) socket.close();
    });
  });
  return { started, done, pause: () => raw()?.pause(), resume: () => raw()?.resume() };
}
