/** The members of an OpenID Provider's configuration Taskwire uses. */
export interface OpenIdConfiguration {
  readonly issuer: string;
  readonly jwks_uri?: string;
  readonly token_endpoint?: string;
  readonly [member: string]: unknown;
}

/** The discovery URL of an issuer: `<issuer>/.well-known/openid-configuration` (RFC 8414 / OIDC Discovery). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * Fetches and checks an issuer's OpenID configuration: the document must
 * be JSON and its `issuer` must be exactly `issuer` (OIDC Discovery §4.3,
 * so a configuration cannot speak for another issuer). Rejects with an
 * Error saying what went wrong.
 */
export async function fetchOpenIdConfiguration(issuer: string, timeoutMs: number, fetchFn: typeof fetch = fetch): Promise<OpenIdConfiguration> {
  const url = discoveryUrl(issuer);
  const response = await fetchFn(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  if (!response.ok) throw new Error(`OpenID discovery at ${url} answered HTTP ${response.status}`);
  const body = (await response.json()) as Partial<OpenIdConfiguration> | null;
  if (!body || typeof body !== 'object' || body.issuer !== issuer) {
    throw new Error(`OpenID discovery at ${url} names issuer ${JSON.stringify(body?.issuer)}, not ${JSON.stringify(issuer)}`);
  }
  return body as OpenIdConfiguration;
}

/**
 * Why a discovered `jwks_uri` must not be used for `issuer`, or
 * `undefined` when it may: it must be an absolute `http(s)` URL, `https`
 * when the issuer is, and on the issuer's host name or one of
 * `allowedHosts` (host names, compared case-insensitively).
 */
export function jwksUriProblem(issuer: string, jwksUri: string, allowedHosts: readonly string[] = []): string | undefined {
  let keys: URL;
  let from: URL;
  try {
    keys = new URL(jwksUri);
    from = new URL(issuer);
  } catch {
    return `The jwks_uri ${JSON.stringify(jwksUri)} of ${issuer} is not an absolute URL`;
  }
  if (keys.protocol !== 'https:' && keys.protocol !== 'http:') return `The jwks_uri ${jwksUri} of ${issuer} is not an http(s) URL`;
  if (from.protocol === 'https:' && keys.protocol !== 'https:') return `The jwks_uri ${jwksUri} of the https issuer ${issuer} is not https; keys fetched in plain text could be swapped`;
  const allowed = [from.hostname, ...allowedHosts.map((h) => h.toLowerCase())];
  if (!allowed.includes(keys.hostname)) {
    return `The jwks_uri ${jwksUri} is not on the host of the issuer ${issuer}; list ${keys.hostname} in jwksHosts if that provider keeps its keys there`;
  }
  return undefined;
}

/**
 * A value fetched once and kept, where a failed fetch is retried no sooner
 * than `retryAfterMs` later (failures in between reject at once with the
 * last error): no request storm against a provider that is down.
 */
export function cachedOnce<T>(load: () => Promise<T>, retryAfterMs: number, now: () => number = Date.now): () => Promise<T> {
  let value: Promise<T> | undefined;
  let failedAt = -Infinity;
  let failure: unknown;
  return () => {
    if (value) return value;
    if (now() - failedAt < retryAfterMs) return Promise.reject(failure);
    const pending = load();
    value = pending;
    pending.catch((error: unknown) => {
      value = undefined;
      failedAt = now();
      failure = error;
    });
    return pending;
  };
}
