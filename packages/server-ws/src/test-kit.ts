/**
 * Test helpers of this package (not published): a reference-agent service,
 * typed tRPC clients and raw sockets that speak tRPC's wire by hand.
 */
import type { Message } from '@taskwire/core';
import { createMemoryTaskStore, TaskService, WS_PROTOCOL_BINDING } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import { WebSocket } from 'ws';
import type { A2ARouter } from './router.js';

/** A fresh service: the reference agent on a memory store, streaming on. */
export function referenceService(): TaskService {
  const card = referenceAgentCard([{ url: 'ws://test', protocolBinding: WS_PROTOCOL_BINDING, protocolVersion: '1.0' }]);
  return new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
}

/** A user message with a fresh messageId. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** A typed tRPC client of the A2A router over one WebSocket (`ws`), with its `close`. */
export function typedClient(url: string, options: { headers?: Record<string, string>; connectionParams?: Record<string, string> } = {}) {
  const { headers } = options;
  const Socket = headers
    ? class extends WebSocket {
        constructor(address: string) {
          super(address, { headers });
        }
      }
    : WebSocket;
  const ws = createWSClient({
    url,
    WebSocket: Socket as unknown as typeof globalThis.WebSocket,
    ...(options.connectionParams && { connectionParams: options.connectionParams }),
  });
  const client = createTRPCClient<A2ARouter>({ links: [wsLink({ client: ws })] });
  return { client, close: () => ws.close() };
}

/** A frame the server sent on a raw socket, decoded. */
export type Frame = Record<string, unknown> & { id?: unknown; result?: { type?: string; id?: string; data?: unknown }; error?: { message: string; data: Record<string, unknown> } };

/**
 * A raw WebSocket speaking tRPC's JSON messages by hand: every frame it
 * receives is queued, and `next(match)` waits for the first unread one that
 * matches.
 */
export class RawSocket {
  private readonly frames: Frame[] = [];
  private readonly waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  /** Resolves with the close code and reason when the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(
    readonly socket: WebSocket,
    answerPings: boolean,
  ) {
    socket.on('message', (data, isBinary) => {
      const text = data.toString();
      if (answerPings && !isBinary && text === 'PING') socket.send('PONG');
      const frame: Frame = !isBinary && (text === 'PING' || text === 'PONG') ? { ping: text } : (JSON.parse(text) as Frame);
      const waiter = this.waiters.findIndex((w) => w.match(frame));
      if (waiter >= 0) this.waiters.splice(waiter, 1)[0]!.resolve(frame);
      else this.frames.push(frame);
    });
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Opens a socket (with upgrade headers; answering keep-alive pings when asked); resolves once it is open. */
  static async open(url: string, headers: Record<string, string> = {}, options: { answerPings?: boolean } = {}): Promise<RawSocket> {
    const socket = new WebSocket(url, { headers });
    const raw = new RawSocket(socket, options.answerPings ?? false);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return raw;
  }

  /** Sends a JSON message (or raw text). */
  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first unread frame that matches (waiting for it). */
  next(match: (frame: Frame) => boolean = () => true): Promise<Frame> {
    const index = this.frames.findIndex(match);
    if (index >= 0) return Promise.resolve(this.frames.splice(index, 1)[0]!);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The first unread frame answering request `id`. */
  answer(id: number | null): Promise<Frame> {
    return this.next((f) => f.id === id);
  }

  close(): void {
    this.socket.terminate();
  }
}
