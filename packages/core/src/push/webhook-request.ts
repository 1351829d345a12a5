import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress, ResolvedWebhook } from './webhook-guard.js';

/** What a webhook answered: its status and the headers the delivery reads. */
export interface WebhookReply {
  readonly status: number;
  readonly retryAfter?: string | undefined;
}

/** Most response-body bytes read (and dropped) before the connection is closed. */
const MAX_DRAIN_BYTES = 64 * 1024;

/** A `lookup` for `net.connect` that answers with the addresses the guard checked, never asking DNS again. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === 'number' ? options : options?.family;
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    const list = wanted.length > 0 ? wanted : addresses;
    const done = callback as (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;
    if (typeof options === 'object' && options?.all) done(null, list.map((a) => ({ address: a.address, family: a.family })));
    else done(null, list[0]!.address, list[0]!.family);
  };
}

/** Keep-alive agents for webhook calls; `destroy` closes their sockets. */
export interface WebhookAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
  destroy(): void;
}

/** New keep-alive agents (one pair per delivery). */
export function webhookAgents(): WebhookAgents {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return { ...agents, destroy: () => (agents.http.destroy(), agents.https.destroy()) };
}

/**
 * POSTs `body` to a checked webhook, connecting only to the addresses the
 * guard returned (an IP literal host is connected to as is). Redirects are
 * not followed: a 3xx is returned like any other status. Resolves once the
 * response has ended (its body is read and dropped, up to 64 KiB); rejects
 * on a network error or when `signal` aborts (the attempt's timeout).
 */
export function postWebhook(
  target: ResolvedWebhook,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  agents: WebhookAgents,
): Promise<WebhookReply> {
  const secure = target.url.protocol === 'https:';
  return new Promise<WebhookReply>((resolve, reject) => {
    const request = (secure ? https : http).request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
        lookup: pinnedLookup(target.addresses),
        signal,
      },
      (response) => {
        const answer = { status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] };
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_DRAIN_BYTES) {
            response.destroy();
            resolve(answer);
          }
        });
        response.on('end', () => resolve(answer));
        response.on('error', reject);
        response.on('close', () => resolve(answer));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
