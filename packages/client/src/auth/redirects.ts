import { A2AError } from '@taskwire/core';
import type { CredentialScope } from './origins.js';
import { credentialHeaderNames, CredentialOriginError, originOf } from './origins.js';

/** One request, as {@link fetchInScope} sends it (and sends it again to each redirect's target). */
export interface ScopedRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | URLSearchParams | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Statuses whose `Location` the client follows. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** How many redirects one request may take (as browsers: 20). */
export const MAX_REDIRECTS = 20;

/** The request a redirect asks for: 303 (and 301/302 after a POST) become a GET without body, as fetch does. */
function redirected(request: ScopedRequest, status: number): ScopedRequest {
  if (!(status === 303 || ((status === 301 || status === 302) && request.method === 'POST')) || request.method === 'GET' || request.method === 'HEAD') return request;
  const { 'content-type': _type, ...headers } = request.headers;
  return { ...request, method: 'GET', headers, body: undefined };
}

/**
 * Sends `request` to `url` with `redirect: 'manual'` and follows redirects
 * itself, so that credentials stay in `scope`: before each hop (the first
 * included), a request that carries a credential header (see
 * `credentialHeaderNames`) to an origin `scope` does not allow is refused
 * with a {@link CredentialOriginError}, nothing sent. Requests without
 * credentials go where the redirects lead. 303 (and 301/302 after a POST)
 * continue as a GET without body, 307/308 repeat the method and body. Where
 * the platform hides redirects (a browser's opaque redirect), a request
 * with credentials is refused and one without is sent again with
 * `redirect: 'follow'`. `what` names the request in errors.
 */
export async function fetchInScope(fetchFn: typeof fetch, url: string, request: ScopedRequest, scope: CredentialScope, what: string): Promise<Response> {
  let current = url;
  let next = request;
  for (let hop = 0; ; hop++) {
    const credentials = credentialHeaderNames(next.headers).length > 0;
    if (credentials && !scope.allows(current)) throw scope.refusal(current, hop === 0 ? what : `A redirect of ${what} (to ${current})`);
    const init = { method: next.method, headers: next.headers, body: next.body, signal: next.signal };
    const response = await fetchFn(current, { ...init, redirect: 'manual' });
    if (response.type === 'opaqueredirect') {
      if (credentials) {
        throw new CredentialOriginError(`${what} was redirected, and this platform hides where to: refused, so that your credentials stay where you sent them; use the URL it redirects to`, originOf(current) ?? current);
      }
      return fetchFn(current, { ...init, redirect: 'follow' });
    }
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new A2AError('Internal', `${what} was redirected more than ${MAX_REDIRECTS} times (last to ${location}); check the URL`);
    current = new URL(location, current).href;
    next = redirected(next, response.status);
  }
}
