/**
 * Connection strings as libpq takes them: several hosts in one URL
 * (`postgres://h1:5432,h2:5433/db?target_session_attrs=read-write`), which
 * node-postgres cannot parse (it reads a connection string with the URL
 * parser, which allows one host only).
 */

/** The sessions a connection string asks for: any server, or only one that takes writes. */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

/** One host of a connection string, with the URL that reaches it alone. */
export interface TargetHost {
  /** The host as written (an IPv6 address without its brackets). */
  readonly host: string;
  readonly port: number;
  /** The connection string with this host only and without `target_session_attrs` (node-postgres parses it). */
  readonly url: string;
}

/** A connection string split into its hosts, tried in order. */
export interface ConnectionTargets {
  readonly hosts: readonly TargetHost[];
  /** What a connection must reach: `read-write` when several hosts are given and the string does not say. */
  readonly sessionAttrs: TargetSessionAttrs;
}

/** The values libpq knows for `target_session_attrs` that need a server that only reads: Taskwire writes, so they are refused. */
const READ_ONLY_ATTRS = new Set(['read-only', 'standby', 'prefer-standby']);

const DEFAULT_PORT = 5432;

/** Splits `host:port` or `[v6]:port` (port optional). */
function hostAndPort(spec: string, fallbackPort: number, url: string): { host: string; port: number; written: string } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(spec);
  if (match === null) throw new TypeError(`Invalid connection string: cannot read the host "${spec}" of ${redactTargets(url)}`);
  const written = match[1]!;
  const host = written.startsWith('[') ? written.slice(1, -1) : decodeURIComponent(written);
  const port = match[2] === undefined || match[2] === '' ? fallbackPort : Number(match[2]);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new TypeError(`Invalid connection string: bad port in "${spec}"`);
  return { host, port, written };
}

/**
 * Reads a `postgres://` or `postgresql://` URL the way libpq does for what
 * node-postgres does not: a comma-separated list of hosts (each with an
 * optional port; a missing one is `port=` of the query or 5432) and
 * `target_session_attrs`. Returns `undefined` for a string node-postgres
 * reads as it is (one host, no `target_session_attrs`, or not a URL).
 * `read-write` and `primary` are kept (a connection then checks, after it
 * opens, that the server takes writes); `any` is kept; `read-only`,
 * `standby` and `prefer-standby` throw a TypeError (the store writes), as
 * does an unknown value. Several hosts without `target_session_attrs` mean
 * `read-write`.
 */
export function parseTargets(url: string): ConnectionTargets | undefined {
  const scheme = /^(postgres(?:ql)?:\/\/)/i.exec(url);
  if (scheme === null) return undefined;
  const rest = url.slice(scheme[1]!.length);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const tail = end === -1 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const queryStart = tail.indexOf('?');
  const params = new URLSearchParams(queryStart === -1 ? '' : tail.slice(queryStart + 1).replace(/#.*$/, ''));
  const attrs = params.get('target_session_attrs');
  if (!hostList.includes(',') && attrs === null) return undefined;
  if (attrs !== null && READ_ONLY_ATTRS.has(attrs)) {
    throw new TypeError(`target_session_attrs=${attrs} is not supported: Taskwire writes to its database, so it needs read-write (or primary, or any)`);
  }
  if (attrs !== null && attrs !== 'any' && attrs !== 'read-write' && attrs !== 'primary') {
    throw new TypeError(`Invalid target_session_attrs "${attrs}": use read-write, primary or any`);
  }
  params.delete('target_session_attrs');
  const portParam = params.get('port');
  params.delete('port');
  const query = params.toString();
  const path = queryStart === -1 ? tail : tail.slice(0, queryStart);
  const fallbackPort = portParam === null ? DEFAULT_PORT : Number(portParam);
  const specs = hostList.split(',');
  if (specs.some((spec) => spec === '')) throw new TypeError(`Invalid connection string: an empty host in ${redactTargets(url)}`);
  const hosts = specs.map((spec) => {
    const { host, port, written } = hostAndPort(spec, fallbackPort, url);
    return { host, port, url: `${scheme[1]}${userinfo}${written}:${port}${path}${query === '' ? '' : `?${query}`}` };
  });
  return { hosts, sessionAttrs: (attrs as TargetSessionAttrs | null) ?? 'read-write' };
}

/** `url` with its password replaced by `***` (any number of hosts), for messages. */
export function redactTargets(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:)[^@/?#]*@/i, '$1***@');
}
