import { originOf } from '@taskwire/client';

/**
 * Whether credentials given for the agent at `agentUrl` may go to
 * `target`: only on the agent's own origin (the URL the user named) or an
 * origin the user listed in `trusted` (each an origin or a URL on it),
 * origins as the client's `originOf` spells them.
 */
export function mayCarryCredentials(target: string, agentUrl: string | undefined, trusted: readonly string[] = []): boolean {
  const origin = originOf(target);
  if (origin === undefined) return false;
  return [agentUrl, ...trusted].some((allowed) => allowed !== undefined && originOf(allowed) === origin);
}

/** A redirect the inspector did not follow on a call to an agent. */
export class RedirectRefused extends Error {
  override readonly name = 'RedirectRefused';
}

/**
 * `fetch` for the calls to an agent's interfaces: a redirect is never
 * followed (the request, its credentials and its body stay where the card
 * said); it fails with a {@link RedirectRefused} naming where it pointed.
 */
export const fetchWithoutRedirects: typeof fetch = async (input, init) => {
  const response = await fetch(input, { ...init, redirect: 'manual' });
  if (response.status < 300 || response.status >= 400 || response.status === 304) return response;
  await response.body?.cancel().catch(() => undefined);
  throw new RedirectRefused(`the agent answered HTTP ${response.status} to ${response.headers.get('location') ?? '(no Location)'}: the inspector follows no redirect of a call`);
};
