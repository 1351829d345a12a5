import type { StoredEvent } from '../store/task-store.js';
import { parseRetryAfter } from './backoff.js';
import type { PushConfig } from './push-config-store.js';
import type { WebhookGuard } from './webhook-guard.js';
import { UnsafeWebhookError } from './webhook-guard.js';
import type { WebhookAgents } from './webhook-request.js';
import { postWebhook } from './webhook-request.js';

/** The media type of a notification body (a StreamResponse), as the spec names it. */
export const NOTIFICATION_CONTENT_TYPE = 'application/a2a+json';

/** Our extension header: the task event's sequence number, for receivers that deduplicate (delivery is at least once). */
export const SEQUENCE_HEADER = 'x-taskwire-event-sequence';

/**
 * The headers of a notification: `Content-Type: application/a2a+json`;
 * `Authorization: <scheme> <credentials>` when the config's
 * `authentication` has credentials; `X-A2A-Notification-Token: <token>` (the
 * header v0.3 receivers read) when the config has a `token`; and the event's
 * sequence number.
 */
export function notificationHeaders(config: PushConfig, sequence: number, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': NOTIFICATION_CONTENT_TYPE,
    'user-agent': userAgent,
    [SEQUENCE_HEADER]: String(sequence),
  };
  const auth = config.authentication;
  if (auth?.credentials) headers.authorization = `${auth.scheme} ${auth.credentials}`;
  if (config.token) headers['x-a2a-notification-token'] = config.token;
  return headers;
}

/** How one attempt went: acknowledged, failed (to retry or not), or stopped because the delivery closed. */
export type AttemptOutcome =
  | { readonly kind: 'acknowledged' }
  | { readonly kind: 'failed'; readonly retry: boolean; readonly error: string; readonly retryAfterMs?: number | undefined }
  | { readonly kind: 'stopped' };

/** What an attempt needs besides the config and the event. */
export interface AttemptDeps {
  readonly guard: WebhookGuard;
  readonly agents: WebhookAgents;
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** Aborted when the delivery closes. */
  readonly stop: AbortSignal;
  readonly now: () => number;
}

/**
 * Sends one notification once: checks the URL again (against DNS
 * rebinding) and POSTs the event to the addresses just checked, with a
 * timeout. A 2xx acknowledges it. Any other status, a network error or a
 * timeout is a failure to retry; a URL the guard now refuses is a failure
 * not to retry (unless only DNS failed).
 */
export async function attemptDelivery(config: PushConfig, event: StoredEvent, deps: AttemptDeps): Promise<AttemptOutcome> {
  let target;
  try {
    target = await deps.guard.resolve(config.url);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const retry = !(error instanceof UnsafeWebhookError) || error.reason === 'unresolvable';
    return { kind: 'failed', retry, error: `refused before sending: ${message}` };
  }
  if (deps.stop.aborted) return { kind: 'stopped' };
  // One controller per attempt, aborted by its timer or by the delivery closing; both are undone
  // when the attempt ends (AbortSignal.timeout/any would keep a timer and a listener per attempt alive).
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error(`no answer within ${deps.timeoutMs} ms`));
  }, deps.timeoutMs);
  const onStop = () => abort.abort(deps.stop.reason);
  deps.stop.addEventListener('abort', onStop, { once: true });
  try {
    const headers = notificationHeaders(config, event.sequence, deps.userAgent);
    const answer = await postWebhook(target, JSON.stringify(event.event), headers, abort.signal, deps.agents);
    if (answer.status >= 200 && answer.status < 300) return { kind: 'acknowledged' };
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed: configure the final URL)' : '';
    return {
      kind: 'failed',
      retry: true,
      error: `the webhook answered HTTP ${answer.status}${redirect}`,
      retryAfterMs: parseRetryAfter(answer.retryAfter, deps.now()),
    };
  } catch (error) {
    if (deps.stop.aborted) return { kind: 'stopped' };
    if (timedOut) return { kind: 'failed', retry: true, error: `no answer within ${deps.timeoutMs} ms` };
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: 'failed', retry: true, error: `the request failed: ${code ? `${code} ` : ''}${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
    deps.stop.removeEventListener('abort', onStop);
  }
}
