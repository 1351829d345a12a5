import { A2AError } from '@taskwire/core';

/**
 * Which origins may receive a client's credentials, and the checks that keep
 * them there. Runs anywhere (no node built-ins).
 */

/** The web scheme a transport scheme stands for: `ws:` is `http:` under another name, a gRPC `host:port` is plaintext. */
const WEB_SCHEME: Readonly<Record<string, string>> = { 'ws:': 'http:', 'wss:': 'https:', 'grpc:': 'http:', 'grpcs:': 'https:' };

/**
 * The origin of an agent, card or interface URL, as `scheme://host[:port]`
 * with an http(s) scheme: `ws(s):` and `grpc(s):` count as `http(s):`, and
 * a bare `host:port` (how cards name gRPC interfaces) as `http://host:port`
 * (the gRPC transport speaks plaintext). Undefined when `url` is not a URL.
 */
export function originOf(url: string | URL): string | undefined {
  const text = String(url);
  const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(full)![0].toLowerCase();
  try {
    const origin = new URL(`${WEB_SCHEME[scheme] ?? scheme}${full.slice(scheme.length)}`).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Headers that carry no credential: the protocol's own, content negotiation
 * and trace context. Every other header a caller sets (`authorization`,
 * `x-api-key`, `cookie`, a custom `x-tenant-secret` ...) counts as a
 * credential, since the client cannot know what it means to the agent.
 */
export const PROTOCOL_HEADERS: ReadonlySet<string> = new Set([
  'a2a-version',
  'a2a-extensions',
  'accept',
  'content-type',
  'last-event-id',
  'traceparent',
  'tracestate',
  'baggage',
  'user-agent',
]);

/** The names of the headers in `headers` that may carry a credential (see {@link PROTOCOL_HEADERS}), lower-cased. */
export function credentialHeaderNames(headers: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(headers ?? {})
    .map((name) => name.toLowerCase())
    .filter((name) => !PROTOCOL_HEADERS.has(name));
}

/**
 * The origins that may receive a client's credentials: the origin of the
 * URL the user gave (the card's URL, or the agent's), and those listed in
 * `trusted` (each an origin, a URL on it, or a gRPC `host:port`). A card,
 * an interface or a redirect never adds to it.
 */
export class CredentialScope {
  /** The allowed origins, as {@link originOf} spells them. */
  readonly origins: ReadonlySet<string>;

  constructor(
    /** The URL the user gave (whose origin the credentials belong to). */
    readonly given: string,
    trusted: readonly string[] = [],
  ) {
    const origins = new Set<string>();
    for (const entry of [given, ...trusted]) {
      const origin = originOf(entry);
      if (origin === undefined) throw new TypeError(`trustedOrigins: "${entry}" is not an origin or URL (e.g. https://agent.example or 127.0.0.1:50051)`);
      origins.add(origin);
    }
    this.origins = origins;
  }

  /** Whether `url` may receive the credentials: its origin is the given one or a trusted one (scheme, host and port all count). */
  allows(url: string | URL): boolean {
    const origin = originOf(url);
    return origin !== undefined && this.origins.has(origin);
  }

  /** The error for credentials that would go to `url`, naming the option that allows it. */
  refusal(url: string | URL, what: string): CredentialOriginError {
    const origin = originOf(url) ?? String(url);
    const downgrade = originOf(this.given)?.startsWith('https:') && origin.startsWith('http:') ? ' over plaintext' : '';
    return new CredentialOriginError(
      `${what} would send your credentials to ${origin}${downgrade}, which is not the origin you gave (${originOf(this.given)}): ` +
        `refused. If you trust ${origin}, list it in trustedOrigins (CLI: --trust-origin ${origin})`,
      origin,
    );
  }
}

/**
 * Credentials would have gone to an origin the user did not give or list
 * in `trustedOrigins` (an interface of the card, a redirect): nothing was
 * sent. A `PermissionDenied` {@link A2AError} raised by the client itself,
 * never retried; `origin` is where they would have gone.
 */
export class CredentialOriginError extends A2AError {
  constructor(
    message: string,
    readonly origin: string,
  ) {
    super('PermissionDenied', message, { refusedOrigin: origin });
  }
}
