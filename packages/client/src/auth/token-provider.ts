import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { CredentialScope } from './origins.js';
import { fetchInScope } from './redirects.js';

/**
 * Where a client gets the bearer token it sends (`Authorization: Bearer`).
 * `token()` resolves a token that is valid now; `{ fresh: true }` asks for
 * one that is not the cached one (after the server refused it).
 */
export interface TokenProvider {
  token(options?: { readonly fresh?: boolean; readonly signal?: AbortSignal }): Promise<string>;
}

/** A fixed token (an API token, a token you refresh yourself). */
export function staticToken(token: string): TokenProvider {
  if (!token) throw new TypeError('staticToken: the token is empty');
  return { token: () => Promise.resolve(token) };
}

/** Tokens from your own code; `fresh` is true when the server refused the last one. */
export function tokenCallback(get: (fresh: boolean) => string | Promise<string>): TokenProvider {
  return { token: async (options) => get(options?.fresh ?? false) };
}

/** Options of {@link clientCredentials}. */
export interface ClientCredentialsOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The token endpoint; default the `token_endpoint` of `<issuer>/.well-known/openid-configuration`. */
  readonly tokenUrl?: string;
  /**
   * The issuer whose discovery document names the token endpoint (when
   * `tokenUrl` is not given). The `token_endpoint` it names must be on the
   * issuer's own origin (scheme, host and port), else it is refused: the
   * client secret goes there.
   */
  readonly issuer?: string;
  /**
   * Origins (such as `https://oauth2.example.com`) a discovered
   * `token_endpoint` may be on besides the issuer's; an origin over plain
   * `http` only when listed here (or when it is the issuer's own).
   */
  readonly tokenEndpointOrigins?: readonly string[];
  /** Scopes to ask for. */
  readonly scopes?: readonly string[];
  /** The resource indicator (RFC 8707), i.e. the agent's audience, when the provider needs one. */
  readonly resource?: string;
  /** A token is renewed this long before it expires (default 30 000 ms). */
  readonly refreshBeforeMs?: number;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
}

/** The token endpoint answered with an error, or with no token. */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';
}

async function discoverTokenUrl(issuer: string, allowed: readonly string[], fetchFn: typeof fetch, signal: AbortSignal | undefined): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetchFn(url, { headers: { accept: 'application/json' }, ...(signal && { signal }) });
  const body = response.ok ? ((await response.json()) as { token_endpoint?: unknown }) : undefined;
  if (typeof body?.token_endpoint !== 'string') throw new TokenRequestError(`The OpenID configuration at ${url} names no token_endpoint (HTTP ${response.status})`);
  const endpoint = body.token_endpoint;
  const origin = URL.canParse(endpoint) ? new URL(endpoint).origin : 'null';
  if (origin !== new URL(url).origin && !allowed.map((o) => (URL.canParse(o) ? new URL(o).origin : o)).includes(origin)) {
    throw new TokenRequestError(
      `The OpenID configuration at ${url} names a token_endpoint on another origin (${origin}) than the issuer's; the client secret is not sent there. ` +
        'Give the token URL yourself (tokenUrl, --token-url), or list that origin in tokenEndpointOrigins',
    );
  }
  return endpoint;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): tokens from the token
 * endpoint (given, or discovered from `issuer`), with the client
 * authenticated by HTTP Basic (never sent along a redirect to another
 * origin). A token is cached until `refreshBeforeMs`
 * before it expires; concurrent calls share one request in flight. A
 * refused request rejects with a {@link TokenRequestError} naming the
 * endpoint and the OAuth error, never the secret.
 */
export function clientCredentials(options: ClientCredentialsOptions): TokenProvider {
  if (!options.tokenUrl && !options.issuer) throw new TypeError('clientCredentials: pass tokenUrl, or issuer to discover it');
  const fetchFn = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;
  const refreshBeforeMs = options.refreshBeforeMs ?? 30_000;
  let cached: { token: string; renewAt: number } | undefined;
  let inFlight: Promise<string> | undefined;
  let tokenUrl = options.tokenUrl;

  const request = async (signal: AbortSignal | undefined): Promise<string> => {
    tokenUrl ??= await discoverTokenUrl(options.issuer!, options.tokenEndpointOrigins ?? [], fetchFn, signal);
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (options.scopes?.length) body.set('scope', options.scopes.join(' '));
    if (options.resource) body.set('resource', options.resource);
    const basic = btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`);
    const started = clock.now();
    // The client secret follows no redirect to another origin.
    const request = {
      method: 'POST',
      body,
      headers: { authorization: `Basic ${basic}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      signal,
    };
    const response = await fetchInScope(fetchFn, tokenUrl, request, new CredentialScope(tokenUrl), `The token request to ${tokenUrl}`);
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    if (!response.ok || typeof answer.access_token !== 'string') {
      const why = typeof answer.error === 'string' ? `${answer.error}${typeof answer.error_description === 'string' ? `: ${answer.error_description}` : ''}` : 'no access_token';
      throw new TokenRequestError(`The token endpoint ${tokenUrl} refused client ${options.clientId} (HTTP ${response.status}, ${why})`);
    }
    const lifetimeMs = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : 0;
    cached = { token: answer.access_token, renewAt: started + Math.max(0, lifetimeMs - refreshBeforeMs) };
    return answer.access_token;
  };

  return {
    token(call) {
      if (!call?.fresh && cached && clock.now() < cached.renewAt) return Promise.resolve(cached.token);
      if (call?.fresh) cached = undefined;
      inFlight ??= request(call?.signal).finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
