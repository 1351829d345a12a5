import type { Credentials } from './transports.js';

/** An OAuth 2.0 client-credentials grant (RFC 6749 §4.4), as entered on the page. */
export interface ClientCredentials {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes, if the agent needs some. */
  readonly scope?: string | undefined;
}

/** Tokens fetched, by grant, until shortly before they expire (this process's memory only). */
const tokens = new Map<string, { token: string; expiresAt: number }>();

/**
 * An access token for `grant`: POSTs `grant_type=client_credentials` to its
 * token URL with the client id and secret as HTTP Basic (RFC 6749 §2.3.1)
 * and returns `access_token`, reusing it until 30 s before `expires_in`.
 * Throws an error that says what the token endpoint answered.
 */
export async function clientCredentialsToken(grant: ClientCredentials, fetchImpl: typeof fetch = fetch): Promise<string> {
  const key = JSON.stringify([grant.tokenUrl, grant.clientId, grant.clientSecret, grant.scope ?? '']);
  const cached = tokens.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  const basic = Buffer.from(`${encodeURIComponent(grant.clientId)}:${encodeURIComponent(grant.clientSecret)}`).toString('base64');
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...(grant.scope && { scope: grant.scope }) });
  let response: Response;
  try {
    response = await fetchImpl(grant.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      redirect: 'error', // the client secret goes to the token URL given, never where it redirects
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new Error(`the token URL ${grant.tokenUrl} does not answer (${(error as Error).message})`);
  }
  const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
  if (!response.ok || typeof answer.access_token !== 'string') {
    throw new Error(`the token URL ${grant.tokenUrl} gave no access token (HTTP ${response.status}${typeof answer.error === 'string' ? `, ${answer.error}` : ''})`);
  }
  const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 - 30_000 : 0;
  if (lifetime > 0) tokens.set(key, { token: answer.access_token, expiresAt: Date.now() + lifetime });
  return answer.access_token;
}

/** `credentials` with a client-credentials grant turned into its bearer token (the others as given). */
export async function resolveCredentials(credentials: (Credentials & { clientCredentials?: ClientCredentials }) | undefined): Promise<Credentials | undefined> {
  if (!credentials?.clientCredentials?.tokenUrl) return credentials;
  const { clientCredentials, ...rest } = credentials;
  return { ...rest, bearer: await clientCredentialsToken(clientCredentials) };
}
