// The checks every request to the bridge's Streamable HTTP endpoint passes
// before it reaches a session: the names it serves (against DNS rebinding),
// its bearer token, and a bounded body.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]|::ffff:127\.\d+\.\d+\.\d+)$/i;

/** True for a loopback address or name (`127.x.x.x`, `localhost`, `::1`, `::ffff:127.x.x.x`). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** The host name of a `Host` header, an origin or a listen address, as a URL spells it (`LOCALHOST:3000` → `localhost`, `::ffff:10.0.0.1` → `[::ffff:a00:1]`); '' when it is none. */
export function hostName(value: string): string {
  const bare = value.includes(':') && !value.includes('[') && !value.includes('://') && value.split(':').length > 2 ? `[${value}]` : value;
  try {
    return new URL(bare.includes('://') ? bare : `http://${bare}`).hostname;
  } catch {
    return '';
  }
}

/** The unspecified addresses, which are no name a client can use. */
const WILDCARD = new Set(['0.0.0.0', '[::]', '[::ffff:0:0]']);

/**
 * The host names the endpoint answers to: the loopback names, the address
 * it listens on when that is a specific IP address (an address typed in
 * cannot be rebound), and the names the user adds (`--allowed-host`).
 */
export function servedNames(listen: string, allowed: readonly string[] = []): ReadonlySet<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', ...allowed.map(hostName).filter(Boolean)]);
  const own = hostName(listen);
  if (own && !WILDCARD.has(own)) names.add(own);
  return names;
}

/** True when the request's `Host` (and `Origin`, when sent) names the endpoint: a rebound name or another site's page gets false. */
export function servedRequest(req: IncomingMessage, names: ReadonlySet<string>): boolean {
  const served = (value: string) => {
    const name = hostName(value);
    return names.has(name) || isLoopback(name);
  };
  const origin = req.headers.origin;
  return served(req.headers.host ?? '') && (origin === undefined || served(origin));
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const found = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return found !== null && timingSafeEqual(digest(found[1]!), digest(token));
}

/** A body larger than the endpoint takes. */
export class BodyTooLarge extends Error {}

/** Reads a JSON body of at most `limit` bytes (throws {@link BodyTooLarge} past it, before parsing; `SyntaxError` for bad JSON); undefined when empty. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
