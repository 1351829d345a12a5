import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** The header in which the page sends its session token with every API call. */
export const TOKEN_HEADER = 'x-inspector-token';

/** The names under which the inspector's page may be opened on this machine. */
const LOOPBACK_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS: readonly string[] = ['0.0.0.0', '::', '[::]', ''];

/** True when `host` (as given to `--host`: a name or an address, IPv6 with or without brackets) is this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** True when `host` listens on every address (`0.0.0.0`, `::`). */
export function isWildcardHost(host: string): boolean {
  return WILDCARDS.includes(host.trim());
}

/** `host` as it appears in a URL or a Host header (IPv6 in brackets). */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A fresh session token: 32 random bytes, base64url. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares a token given with the session's in constant time (whatever their lengths). */
export function sameToken(given: string | undefined, expected: string): boolean {
  return timingSafeEqual(digest(given ?? ''), digest(expected));
}

/** Why a request was refused: the HTTP status and a message for whoever sent it. */
export interface Refusal {
  readonly status: 403 | 401;
  readonly message: string;
}

/**
 * The checks that make the inspector answer its own page only (against DNS
 * rebinding and other sites): the Host header must name this machine
 * (`127.0.0.1`, `localhost`, `[::1]`) on the inspector's port, an `Origin`
 * when the browser sends one must be `http://` + that Host, and every API
 * call must carry the session token in {@link TOKEN_HEADER}.
 *
 * Listening on another address (`--host`) also lets that address through
 * (any IP address for `0.0.0.0` or `::`): a Host that is an IP address
 * cannot be a rebound DNS name, and the token is still required.
 */
export class PageGuard {
  private readonly names: ReadonlySet<string>;
  private readonly anyAddress: boolean;

  /** `host` and `port`: where the server listens; `token`: the session token. */
  constructor(
    host: string,
    private readonly port: number,
    private readonly token: string,
  ) {
    const extra = isLoopbackHost(host) || isWildcardHost(host) ? [] : [urlHost(host).toLowerCase()];
    this.names = new Set([...LOOPBACK_NAMES, ...extra]);
    this.anyAddress = isWildcardHost(host);
  }

  /** Whether `hostHeader` (`name[:port]`) names this server. */
  private hostAllowed(hostHeader: string | undefined): boolean {
    const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(hostHeader ?? '');
    if (!match) return false;
    const name = match[1]!.toLowerCase();
    const port = match[2] === undefined ? 80 : Number(match[2]);
    if (port !== this.port) return false;
    return this.names.has(name) || (this.anyAddress && isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0);
  }

  /** Refuses a request for any file of the page that does not come through a name of this machine. */
  checkPage(req: IncomingMessage): Refusal | undefined {
    if (!this.hostAllowed(req.headers.host)) return { status: 403, message: `the inspector answers only at 127.0.0.1, localhost or [::1] on port ${this.port} (not at the Host this request names)` };
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}`) return { status: 403, message: 'the inspector answers its own page only (this request comes from another origin)' };
    return undefined;
  }

  /** {@link checkPage}, then the session token of the URL the inspector printed. */
  checkApi(req: IncomingMessage): Refusal | undefined {
    const refused = this.checkPage(req);
    if (refused) return refused;
    const given = req.headers[TOKEN_HEADER];
    if (!sameToken(typeof given === 'string' ? given : undefined, this.token)) return { status: 401, message: 'open the URL the inspector printed: its token is missing or wrong' };
    return undefined;
  }
}
