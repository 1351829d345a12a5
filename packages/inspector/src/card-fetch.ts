import { agentCardUrl } from '@taskwire/client';
import type { Credentials } from './transports.js';
import { credentialHeaders } from './transports.js';

/** One redirect the card request met. */
export interface RedirectHop {
  /** The HTTP status of the redirect (301, 302, 303, 307, 308). */
  readonly status: number;
  readonly from: string;
  /** Where its `Location` points (resolved against `from`); empty when it names none. */
  readonly to: string;
  /** Followed when it stays on the origin of `from`; a redirect to another origin is shown and not followed. */
  readonly followed: boolean;
}

/** What {@link fetchCard} got: the last response (unless none answered) and every redirect on the way. */
export interface CardFetch {
  readonly cardUrl: string;
  readonly redirects: readonly RedirectHop[];
  /** The last response; its status is a redirect when one was not followed. */
  readonly response?: Response;
  /** Why there is no usable response (the request failed, or a redirect was not followed). */
  readonly error?: string;
}

/**
 * Why a request (to `url`, when given) failed, with the cause `fetch` hides
 * (a TLS error, a refused connection, a time limit, a port fetch refuses).
 */
export function failureText(error: unknown, url?: string): string {
  const { name, message, cause } = (error ?? {}) as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (name === 'TimeoutError') return 'no answer within the time limit';
  if (cause?.message === 'bad port') {
    const port = url === undefined ? '' : ` ${new URL(url).port}`;
    return `port${port} is a blocked port: fetch, as browsers do, refuses to connect to it (the Fetch standard's "bad ports"); serve the agent on another port`;
  }
  const detail = cause?.code ?? cause?.message;
  return detail ? `${message ?? String(error)}: ${detail}${cause?.message && cause.message !== detail ? ` (${cause.message})` : ''}` : (message ?? String(error));
}

/**
 * Where the inspector reads the card of the agent at `url`: a URL of a
 * `.json` file is the card itself; an origin (path `/`) has its card at
 * `/.well-known/agent-card.json`; a URL with another path has it under that
 * path (`http://host/agents/a` → `http://host/agents/a/.well-known/agent-card.json`),
 * so the card checked is the one of the URL given, never the origin's
 * instead.
 */
export function inspectedCardUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '/' || parsed.pathname.endsWith('.json')) return agentCardUrl(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/?$/, '/')}.well-known/agent-card.json`;
}

/** How many redirects on one origin the inspector follows. */
const MAX_REDIRECTS = 5;
const CARD_TIMEOUT_MS = 10_000;

/**
 * Fetches the card of the agent at `url` ({@link inspectedCardUrl}) with `credentials`,
 * following redirects by hand: one that stays on the same origin is followed
 * (credentials and all, at most {@link MAX_REDIRECTS}), one to another
 * origin is recorded and not followed, so neither the credentials nor the
 * inspector go where the user did not send them. Each request waits
 * `timeoutMs` at most (default 10000). Never throws.
 */
export async function fetchCard(url: string, credentials?: Credentials, timeoutMs = CARD_TIMEOUT_MS): Promise<CardFetch> {
  const cardUrl = inspectedCardUrl(url);
  const redirects: RedirectHop[] = [];
  const headers = { accept: 'application/json', ...credentialHeaders(credentials) };
  let at = cardUrl;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(at, { headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      return { cardUrl, redirects, error: `the card at ${at} does not load (${failureText(error, at)}), expected an HTTP answer with the card as JSON` };
    }
    if (response.status < 300 || response.status >= 400 || response.status === 304) return { cardUrl, redirects, response };
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    let to = '';
    try {
      to = location === null ? '' : new URL(location, at).href;
    } catch {
      // an unusable Location: shown empty, not followed
    }
    const followed = to !== '' && new URL(to).origin === new URL(at).origin && redirects.length < MAX_REDIRECTS;
    redirects.push({ status: response.status, from: at, to, followed });
    if (!followed) {
      const why = to === '' ? 'names no usable Location' : new URL(to).origin !== new URL(at).origin ? `goes to another origin (${to}): the inspector follows redirects on the card's origin only` : `is one redirect too many (over ${MAX_REDIRECTS})`;
      return { cardUrl, redirects, response, error: `the card request answered HTTP ${response.status} and ${why}` };
    }
    at = to;
  }
}
