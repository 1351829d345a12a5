import type { HeaderBag } from './http-types.js';
import { header } from './http-types.js';

/**
 * Checks a public base URL option (`publicUrl`): an absolute `http:` or
 * `https:` URL without credentials, query or fragment. A path is kept (a
 * proxy that serves the agent below a prefix). Returns it without a
 * trailing `/`; throws a TypeError naming `option` otherwise.
 */
export function publicBaseUrl(value: string, option = 'publicUrl'): string {
  const wrong = (why: string) => new TypeError(`${option} must be an absolute http(s) URL such as https://agents.example.com (${why}: "${value}")`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw wrong('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw wrong(`scheme ${url.protocol} is not http or https`);
  if (url.username || url.password || url.search || url.hash) throw wrong('credentials, a query or a fragment are not allowed');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** A DNS name or IPv4 address (labels of letters, digits, `-`, `_`), or a bracketed IPv6 address; then an optional port. */
const HOST_PORT = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/**
 * `host[:port]` as a URL authority, or undefined when it is not one: a
 * syntactically valid host name, IPv4 address or bracketed IPv6 address,
 * and a port from 1 to 65535. Nothing else (no credentials, paths,
 * spaces or control characters) gets through.
 */
export function validHostPort(value: string): string | undefined {
  const match = HOST_PORT.exec(value);
  if (!match || value.length > 260) return undefined;
  if (match[1] !== undefined && !(Number(match[1]) >= 1 && Number(match[1]) <= 65535)) return undefined;
  try {
    return new URL(`http://${value}`).host;
  } catch {
    return undefined;
  }
}

/**
 * The parameters of the first element of an RFC 7239 `Forwarded` header
 * (the one the proxy nearest the client wrote), names lower-cased and
 * quoted values unquoted; undefined when that element is malformed.
 */
function firstForwarded(value: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  let at = 0;
  for (;;) {
    const name = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=/.exec(value.slice(at));
    if (!name) return undefined;
    at += name[0].length;
    let parsed: string;
    if (value[at] === '"') {
      const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(value.slice(at));
      if (!quoted) return undefined;
      parsed = quoted[1]!.replace(/\\(.)/g, '$1');
      at += quoted[0].length;
    } else {
      parsed = /^[!#$%&'*+.^_`|~0-9A-Za-z:[\]-]*/.exec(value.slice(at))![0];
      at += parsed.length;
    }
    const key = name[1]!.toLowerCase();
    if (pairs.has(key)) return undefined;
    pairs.set(key, parsed);
    const next = /^\s*([;,]|$)/.exec(value.slice(at));
    if (!next) return undefined;
    if (next[1] !== ';') return pairs;
    at += next[0].length;
  }
}

/** The first value of a comma-separated `X-Forwarded-*` header, trimmed. */
function firstValue(value: string | undefined): string | undefined {
  return value?.split(',')[0]!.trim();
}

/**
 * The base URL a request was made at, as a trusted proxy reports it: the
 * scheme from `Forwarded: proto=` or else `X-Forwarded-Proto`, the host
 * from `Forwarded: host=` or else `X-Forwarded-Host` (the first element or
 * value: the proxy nearest the client), each defaulting to `fallback`'s, and
 * `fallback`'s path. When a reported scheme is not `http`/`https` or a
 * reported host is not a valid `host[:port]`, or the `Forwarded` header is
 * malformed, nothing reported is used: the answer is `fallback`.
 */
export function forwardedBaseUrl(headers: HeaderBag, fallback: string): string {
  const forwardedHeader = header(headers, 'forwarded');
  const forwarded = forwardedHeader === undefined ? new Map<string, string>() : firstForwarded(forwardedHeader);
  if (forwarded === undefined) return fallback;
  const proto = forwarded.get('proto') ?? firstValue(header(headers, 'x-forwarded-proto'));
  const host = forwarded.get('host') ?? firstValue(header(headers, 'x-forwarded-host'));
  if (proto === undefined && host === undefined) return fallback;
  const base = new URL(fallback);
  const scheme = proto?.toLowerCase() ?? base.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return fallback;
  const authority = host === undefined ? base.host : validHostPort(host);
  if (authority === undefined) return fallback;
  return `${publicBaseUrl(`${scheme}://${authority}`)}${base.pathname.replace(/\/+$/, '')}`;
}
