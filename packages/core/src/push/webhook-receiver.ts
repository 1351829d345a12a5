import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { StreamResponse } from '../schema/index.js';

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedNotification {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as JSON (a StreamResponse, when the sender is right). */
  readonly body: StreamResponse;
  /** What the receiver answered: an HTTP status, or `hang` (no answer until the sender gives up). */
  readonly answer: number | 'hang';
}

/** An answer with headers (e.g. `Retry-After`, `Location`). */
export interface WebhookAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Decides the answer to a request (a status, a status with headers, or `hang`); `index` counts every request received, from 0. */
export type WebhookResponder = (request: Omit<ReceivedNotification, 'answer'>, index: number) => number | WebhookAnswer | 'hang';

/** A real webhook endpoint on 127.0.0.1 (a free port) for tests of push notifications. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`: add any path. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly received: readonly ReceivedNotification[];
  /** The requests answered with a 2xx, in arrival order. */
  accepted(): ReceivedNotification[];
  /** How later requests are answered (default: 200). */
  respond: WebhookResponder;
  /** Resolves once `predicate` holds (checked now and after every request). */
  waitFor(predicate: (receiver: WebhookReceiver) => boolean): Promise<void>;
  /** Stops listening and drops hung requests. */
  close(): Promise<void>;
}

/**
 * Starts a {@link WebhookReceiver} (node + tests). The sender's guard
 * refuses 127.0.0.1 unless it is allowed: pass `allow: ['127.0.0.1']` to
 * the delivery under test.
 */
export async function startWebhookReceiver(respond: WebhookResponder = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedNotification[] = [];
  const sockets = new Set<Socket>();
  let waiters: { predicate: (r: WebhookReceiver) => boolean; resolve: () => void }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: StreamResponse;
      try {
        body = JSON.parse(text) as StreamResponse;
      } catch {
        body = { raw: text } as unknown as StreamResponse;
      }
      const seen = { path: request.url ?? '/', headers: request.headers, body };
      const planned = receiver.respond(seen, received.length);
      const answer = typeof planned === 'object' ? planned.status : planned;
      received.push({ ...seen, answer });
      if (planned !== 'hang') {
        const headers = typeof planned === 'object' ? planned.headers : undefined;
        response.writeHead(answer as number, { 'content-type': 'text/plain', ...headers }).end('ok');
      }
      const ready = waiters.filter((w) => w.predicate(receiver));
      waiters = waiters.filter((w) => !ready.includes(w));
      for (const w of ready) w.resolve();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    respond,
    accepted: () => received.filter((r) => r.answer !== 'hang' && r.answer >= 200 && r.answer < 300),
    waitFor(predicate) {
      if (predicate(receiver)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
