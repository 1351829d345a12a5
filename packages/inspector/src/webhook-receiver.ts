import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One notification the agent delivered to the receiver. */
export interface Delivery {
  /** When it arrived (ISO 8601). */
  readonly at: string;
  readonly method: string;
  /** The headers that matter to A2A push: `authorization`, `x-a2a-notification-token`, `content-type`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body: parsed JSON, or the text when it is not JSON. */
  readonly body: unknown;
}

/** A local webhook that keeps what agents deliver to it. */
export interface WebhookReceiver {
  /** The URL to give agents as a push notification config's `url`. */
  readonly url: string;
  /** What arrived, oldest first (the last {@link MAX_DELIVERIES}). */
  deliveries(): readonly Delivery[];
  close(): Promise<void>;
}

/** How many deliveries a receiver keeps. */
export const MAX_DELIVERIES = 200;
const MAX_BODY = 1024 * 1024;
const KEPT_HEADERS = ['authorization', 'x-a2a-notification-token', 'content-type'];

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Starts a webhook receiver on a free port of `host` (default 127.0.0.1) at
 * a path no one can guess: every POST there is answered 200 and kept
 * (method, the push headers, the body); another method there is 405, any
 * other path 404, and neither is kept. The receiver never answers with what
 * it keeps: the inspector's API (which needs its token) shows it. An agent
 * on another machine needs `host` to be an address it can reach.
 */
export async function startWebhookReceiver(host = '127.0.0.1'): Promise<WebhookReceiver> {
  const path = `/webhook/${randomUUID()}`;
  const kept: Delivery[] = [];
  const server = createServer((req, res) => {
    if (req.url !== path) return void res.writeHead(404).end();
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    bodyOf(req).then(
      (body) => {
        const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name] as string]] : [])));
        kept.push({ at: new Date().toISOString(), method: req.method ?? '', headers, body });
        if (kept.length > MAX_DELIVERIES) kept.shift();
        res.writeHead(200).end();
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    deliveries: () => [...kept],
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
