import type { AuthPolicy, Logger, Principal } from '@taskwire/core';
import { A2AError, bearerAuth, withdrawalOf } from '@taskwire/core';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { createLocalJWKSet, createRemoteJWKSet, jwksCache, jwtVerify } from 'jose';
import { cachedOnce, fetchOpenIdConfiguration, jwksUriProblem } from './discovery.js';
import type { KeyWatch } from './key-watch.js';
import { keyWatch } from './key-watch.js';
import { codeOfJoseError, tokenError } from './token-errors.js';

/**
 * The asymmetric JWS algorithms `jwtAuth` accepts by default. Symmetric
 * (`HS*`) algorithms and `none` are never in it, so a token signed with
 * the issuer's public key as an HMAC secret is refused.
 */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The principal `jwtAuth` makes by default: `sub` as `id`, the granted scopes, every claim, and when it ends. */
export interface JwtPrincipal extends Principal {
  /** Scopes from the `scope` claim (space-separated) or an `scp` array. */
  readonly scopes: readonly string[];
  readonly claims: JWTPayload;
  /**
   * When the token expires (its `exp`, in ms since the epoch): a
   * connection authenticated once (WebSocket) ends then. `jwtAuth` sets it
   * on every principal it makes, the default one or yours.
   */
  readonly expiresAt?: number;
  /**
   * Aborts when the issuer withdraws the key that signed the token (it is
   * no longer in the issuer's key set): what the token opened (streams, a
   * WebSocket connection) ends then, as at `expiresAt`. `jwtAuth` sets it
   * on every principal it makes, the default one or yours.
   */
  readonly withdrawn?: AbortSignal;
}

/** Options of {@link jwtAuth}. */
export interface JwtAuthOptions {
  /** The issuer (`iss`) tokens must name, exactly; also where the OpenID configuration is discovered. */
  readonly issuer: string;
  /** The audience (`aud`) tokens must name: this agent's resource identifier (one of several). */
  readonly audience: string | readonly string[];
  /** The issuer's JWKS; default: `jwks_uri` of `<issuer>/.well-known/openid-configuration`. */
  readonly jwksUri?: string;
  /** Accepted JWS algorithms (default {@link ASYMMETRIC_ALGORITHMS}); `none` is refused whatever this says. */
  readonly algorithms?: readonly string[];
  /**
   * UNSAFE: accept signed tokens that carry no `exp` (default false: such a
   * token is refused as `missing_expiry`). A token without `exp` never
   * expires: anyone who ever obtained it can use it until the issuer's key
   * is withdrawn. Only for issuers that cannot set `exp`; tokens without it
   * are never kept by {@link verifiedCacheMs}, and a WebSocket connection
   * made with one keeps its principal until it closes.
   */
  readonly allowTokensWithoutExp?: boolean;
  /**
   * Hosts (names, as in a URL's `hostname`) besides the issuer's own where
   * the discovered `jwks_uri` may be (default none). A `jwks_uri` on
   * another host is refused, so a tampered or misconfigured discovery
   * document cannot point verification at keys someone else holds; an
   * `https` issuer's `jwks_uri` must be `https` whatever this says. Not
   * consulted when `jwksUri` is given.
   */
  readonly jwksHosts?: readonly string[];
  /** Seconds of clock skew allowed on `exp`, `nbf` and `iat` (default 30). */
  readonly clockTolerance?: number;
  /** Required JOSE `typ` header, e.g. `at+jwt` for RFC 9068 access tokens (default: any). */
  readonly typ?: string;
  /** Makes the principal from the verified claims (default {@link defaultPrincipal}); `undefined` refuses the token. `expiresAt` (the token's `exp` in ms) is added unless it sets one. */
  readonly principal?: (claims: JWTPayload) => Principal | undefined;
  /** Longest token accepted, in bytes (default 8192); longer ones are refused before they are parsed. */
  readonly maxTokenBytes?: number;
  /** Time allowed for a discovery or JWKS fetch (default 5000 ms). */
  readonly fetchTimeoutMs?: number;
  /**
   * Least time between two JWKS fetches made because a token named an
   * unknown `kid` (default 30 000 ms): tokens with made-up key ids cannot
   * make the agent hammer the issuer.
   */
  readonly cooldownMs?: number;
  /**
   * After a failed discovery or JWKS fetch (timeout, error status, not a
   * key set), how long no new fetch is made (default 5000 ms): tokens are
   * checked against the keys fetched before, if any, and otherwise refused
   * at once as `keys_unavailable`, so an issuer outage is not answered
   * with a fetch per request.
   */
  readonly retryAfterFailureMs?: number;
  /** How long fetched keys are used before they are fetched again (default 10 minutes). */
  readonly cacheMaxAgeMs?: number;
  /**
   * While streams or connections opened with verified tokens may be open
   * (until those tokens expire), the issuer's key set is fetched again this
   * often (ms, default 60 000; 0: never, the keys are then checked only when
   * they are fetched for other reasons): a key no longer published is
   * withdrawn, and what its tokens opened ends at once with
   * `Unauthenticated` (`tokenError: key_withdrawn`). New requests with
   * those tokens are refused from then on, remembered ones included.
   */
  readonly keyCheckIntervalMs?: number;
  /**
   * Remember verified tokens this long (ms, default 0: off), so a client
   * that sends the same token with every call is verified once: a lookup
   * instead of a signature check. A token is never remembered past its
   * `exp`, a token without `exp` (see {@link allowTokensWithoutExp}) is
   * never remembered, and at most `verifiedCacheSize` (default 1000) are kept. The
   * price: a token stays accepted for up to this long after its key was
   * withdrawn from the JWKS.
   */
  readonly verifiedCacheMs?: number;
  /** Most tokens {@link verifiedCacheMs} remembers (default 1000; the oldest go first). */
  readonly verifiedCacheSize?: number;
  /** `realm` of the `WWW-Authenticate` challenge (default `a2a`). */
  readonly realm?: string;
  /** Where failures to fetch the issuer's keys are reported (at `warn`). */
  readonly logger?: Logger;
}

/** A verifier of bearer JWTs, usable alone or as a server's auth policy. */
export interface JwtAuth extends AuthPolicy {
  /** Verifies one token: resolves its principal or rejects with an `Unauthenticated` A2AError (RFC 6750 `invalid_token`). */
  verify(token: string): Promise<Principal>;
  /**
   * Stops the periodic key check ({@link JwtAuthOptions.keyCheckIntervalMs}):
   * its timer is cleared at once and never scheduled again, so nothing of
   * this verifier is left running (call it when the server it guards has
   * closed). Tokens are still verified afterwards, and a withdrawn key is
   * still found when the keys are fetched for another reason (an unknown
   * `kid`, an expired cache). Idempotent.
   */
  close(): void;
}

/** Scopes a token grants: the space-separated `scope` claim, or the `scp` array some issuers use. */
export function scopesOf(claims: JWTPayload): string[] {
  if (typeof claims['scope'] === 'string') return claims['scope'].split(' ').filter(Boolean);
  const scp = claims['scp'];
  return Array.isArray(scp) ? scp.filter((s): s is string => typeof s === 'string') : [];
}

/** The default principal: `sub` as `id` (no `sub`: refused), the token's scopes, its claims, and `exp` as `expiresAt`. */
export function defaultPrincipal(claims: JWTPayload): JwtPrincipal | undefined {
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  return { id: claims.sub, scopes: scopesOf(claims), claims, ...(typeof claims.exp === 'number' && { expiresAt: claims.exp * 1000 }) };
}

/**
 * OIDC / JWT bearer authentication. Verifies `Authorization: Bearer <jwt>`
 * with the issuer's keys (discovered from its OpenID configuration unless
 * `jwksUri` is given, cached, fetched again for an unknown `kid` at most
 * once per `cooldownMs`), checks `exp`/`nbf`/`iat` (with `clockTolerance`),
 * `iss`, `aud` and the algorithm, and maps the claims to the principal.
 * A token without `exp` is refused (`missing_expiry`) unless
 * `allowTokensWithoutExp`; a discovered `jwks_uri` must be on the issuer's
 * host (or one of `jwksHosts`) and `https` when the issuer is. The
 * principal carries the token's expiry as `expiresAt` (ms), and as
 * `withdrawn` a signal that aborts when the issuer withdraws the token's
 * signing key (checked whenever the keys are fetched, and every
 * `keyCheckIntervalMs` while such principals may be in use).
 * Any failure is `Unauthenticated` with an RFC 6750 `invalid_token`
 * challenge whose description says what failed, never the token; no token
 * at all is an anonymous caller (refused unless `required: false`). The
 * result is an auth policy: pass it as `auth` to any Taskwire server.
 */
export function jwtAuth(options: JwtAuthOptions): JwtAuth {
  const algorithms = (options.algorithms ?? ASYMMETRIC_ALGORITHMS).filter((a) => a.toLowerCase() !== 'none');
  const maxBytes = options.maxTokenBytes ?? 8192;
  const timeoutMs = options.fetchTimeoutMs ?? 5000;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const toPrincipal = options.principal ?? defaultPrincipal;
  let keys: () => Promise<KeySet> = undefined as never;
  const watch = keyWatch({ reload: async () => (await keys()).reload(), intervalMs: options.keyCheckIntervalMs ?? 60_000, logger: options.logger });
  keys = keySet(options, timeoutMs, cooldownMs, watch);
  const remembered = verifiedCache(options.verifiedCacheMs ?? 0, options.verifiedCacheSize ?? 1000);

  const check = async (token: string): Promise<Principal> => {
    const known = remembered.get(token);
    if (known) return known;
    const { principal, exp } = await verifyToken(token);
    remembered.set(token, principal, exp);
    return principal;
  };

  const verifyToken = async (token: string): Promise<{ principal: Principal; exp: number | undefined }> => {
    if (token.length > maxBytes) throw tokenError('too_large');
    let claims: JWTPayload;
    let key: unknown;
    try {
      const getKey = await keys();
      ({ payload: claims, key } = await jwtVerify(token, getKey, {
        issuer: options.issuer,
        audience: options.audience as string | string[],
        algorithms,
        clockTolerance: options.clockTolerance ?? 30,
        ...(!options.allowTokensWithoutExp && { requiredClaims: ['exp'] }),
        ...(options.typ !== undefined && { typ: options.typ }),
      }));
    } catch (error) {
      if (A2AError.is(error)) throw error;
      const code = codeOfJoseError(error);
      if (code && code !== 'keys_unavailable') throw tokenError(code);
      options.logger?.warn({ error, issuer: options.issuer }, 'Taskwire auth: the issuer signing keys could not be fetched');
      throw tokenError('keys_unavailable');
    }
    if (typeof claims.iat === 'number' && claims.iat > Date.now() / 1000 + (options.clockTolerance ?? 30)) throw tokenError('issued_in_future');
    const made = toPrincipal(claims);
    if (!made) throw tokenError('missing_subject');
    const exp = typeof claims.exp === 'number' ? claims.exp : undefined;
    const withdrawn = await watch.signalOf(key, exp === undefined ? undefined : (exp + (options.clockTolerance ?? 30)) * 1000);
    const principal = {
      ...made,
      ...(exp !== undefined && made['expiresAt'] === undefined && { expiresAt: exp * 1000 }),
      ...(made['withdrawn'] === undefined && { withdrawn }),
    };
    return { principal, exp };
  };
  const authenticate = bearerAuth(check);
  return { authenticate, verify: check, close: () => watch.close(), challenge: `Bearer realm="${(options.realm ?? 'a2a').replace(/["\\]/g, '')}"` };
}

/** Verified tokens and their principals, kept until `ttlMs` passed, the token expired or its key was withdrawn (off when `ttlMs` is 0; tokens without `exp` are not kept). */
function verifiedCache(ttlMs: number, size: number) {
  const entries = new Map<string, { principal: Principal; until: number }>();
  return {
    get(token: string): Principal | undefined {
      const entry = entries.get(token);
      if (!entry) return undefined;
      if (Date.now() < entry.until && !withdrawalOf(entry.principal)?.aborted) return entry.principal;
      entries.delete(token);
      return undefined;
    },
    set(token: string, principal: Principal, exp: number | undefined): void {
      if (ttlMs <= 0 || exp === undefined) return;
      if (entries.size >= size) entries.delete(entries.keys().next().value!);
      entries.set(token, { principal, until: Math.min(Date.now() + ttlMs, exp * 1000) });
    },
  };
}

/**
 * A remote key set that, for `retryAfterMs` after a failed fetch, makes
 * no request: it answers from the keys it fetched before (unknown `kid`s
 * are refused) or refuses every token as `keys_unavailable`.
 */
function guarded(set: ReturnType<typeof createRemoteJWKSet>, retryAfterMs: number): KeySet {
  let failedAt = -Infinity;
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (Date.now() - failedAt < retryAfterMs) {
      const cached = set.jwks();
      if (!cached) throw tokenError('keys_unavailable');
      return createLocalJWKSet(cached)(header, token);
    }
    try {
      return await set(header, token);
    } catch (error) {
      const code = codeOfJoseError(error);
      if (code === undefined || code === 'keys_unavailable') failedAt = Date.now();
      throw error;
    }
  };
  return Object.assign(getKey, { reload: () => set.reload() });
}

/** The issuer's keys: a key lookup for `jwtVerify`, and a way to fetch them again now. */
type KeySet = JWTVerifyGetKey & { reload(): Promise<void> };

/** The key lookup: the JWKS at `jwksUri`, or at the `jwks_uri` discovery names (discovered once). */
function keySet(options: JwtAuthOptions, timeoutMs: number, cooldownMs: number, watch: KeyWatch): () => Promise<KeySet> {
  const retryAfterMs = options.retryAfterFailureMs ?? 5000;
  const remote = (uri: string) =>
    guarded(createRemoteJWKSet(new URL(uri), { timeoutDuration: timeoutMs, cooldownDuration: cooldownMs, cacheMaxAge: options.cacheMaxAgeMs ?? 600_000, [jwksCache]: watch.cache }),
      retryAfterMs,
    );
  if (options.jwksUri) {
    const set = remote(options.jwksUri);
    return () => Promise.resolve(set);
  }
  return cachedOnce(async () => {
    const config = await fetchOpenIdConfiguration(options.issuer, timeoutMs);
    if (!config.jwks_uri) throw new A2AError('Internal', `The OpenID configuration of ${options.issuer} names no jwks_uri; pass jwksUri`);
    const problem = jwksUriProblem(options.issuer, config.jwks_uri, options.jwksHosts ?? []);
    if (problem) throw new Error(problem); // logged; callers see keys_unavailable
    return remote(config.jwks_uri);
  }, retryAfterMs);
}
