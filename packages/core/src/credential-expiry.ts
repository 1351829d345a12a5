// A credential that ends: what every binding does when the token a call or
// a stream was opened with reaches its `exp`, or is withdrawn before it (its
// issuer stopped publishing the key that signed it).
import type { Principal } from './calls.js';
import { systemClock } from './clock.js';
import { A2AError } from './errors.js';

/**
 * When the credential behind `principal` ends: its `expiresAt` (ms since
 * the epoch, as `jwtAuth` of `@taskwire/auth` sets it from the token's
 * `exp`) when that is a finite number; otherwise `undefined` (it does not
 * end while the connection or stream lasts).
 */
export function expiryOf(principal: Principal | undefined): number | undefined {
  const at = principal?.['expiresAt'];
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

/**
 * The signal that aborts when the credential behind `principal` is
 * withdrawn before it expires: the principal's `withdrawn` (as `jwtAuth` of
 * `@taskwire/auth` sets it: the token's signing key left the issuer's key
 * set) when that is an `AbortSignal`; otherwise `undefined`.
 */
export function withdrawalOf(principal: Principal | undefined): AbortSignal | undefined {
  const signal = principal?.['withdrawn'];
  return signal instanceof AbortSignal ? signal : undefined;
}

/** `Unauthenticated` for a connection or stream whose credential was withdrawn (RFC 6750 `invalid_token`, `tokenError: key_withdrawn`). */
export function credentialWithdrawn(): A2AError {
  return new A2AError('Unauthenticated', 'The key that signed this credential was withdrawn by its issuer; reconnect with a fresh one', {
    error: 'invalid_token',
    tokenError: 'key_withdrawn',
  });
}

/** `Unauthenticated` for a connection or stream whose credential has expired (RFC 6750 `invalid_token`, `tokenError: expired`). */
export function credentialExpired(): A2AError {
  return new A2AError('Unauthenticated', 'The credential of this connection has expired; reconnect with a fresh one', { error: 'invalid_token', tokenError: 'expired' });
}

/** Throws {@link credentialExpired} when `expiresAt` has passed: no call runs on an expired credential. */
export function assertNotExpired(expiresAt: number | undefined): void {
  if (expiresAt !== undefined && Date.now() >= expiresAt) throw credentialExpired();
}

/**
 * Calls `onExpiry` once `expiresAt` is reached, unless `stop` aborts first
 * (the connection or stream ended on its own). Waits through
 * {@link systemClock}, which steps past the longest single timer.
 */
export function atExpiry(expiresAt: number, stop: AbortSignal, onExpiry: () => void): void {
  const left = expiresAt - Date.now();
  if (left <= 0) return onExpiry();
  systemClock.sleep(left, stop).then(onExpiry, () => undefined);
}

/** Throws {@link credentialExpired} or {@link credentialWithdrawn} when the credential of `principal` has ended: no call runs on it. */
export function assertCredentialLive(principal: Principal | undefined): void {
  assertNotExpired(expiryOf(principal));
  if (withdrawalOf(principal)?.aborted) throw credentialWithdrawn();
}

/**
 * Calls `onEnd` once, with {@link credentialExpired} when the credential of
 * `principal` reaches its expiry or {@link credentialWithdrawn} when it is
 * withdrawn (at once when either already happened), unless `stop` aborts
 * first (the connection or stream ended on its own; nothing is left
 * listening then). Returns false, and never calls `onEnd`, for a principal
 * whose credential neither expires nor can be withdrawn.
 */
export function whenCredentialEnds(principal: Principal | undefined, stop: AbortSignal, onEnd: (error: A2AError) => void): boolean {
  const expiresAt = expiryOf(principal);
  const withdrawn = withdrawalOf(principal);
  if (expiresAt === undefined && !withdrawn) return false;
  const ended = new AbortController();
  const until = AbortSignal.any([stop, ended.signal]);
  const end = (error: A2AError) => {
    if (until.aborted) return;
    ended.abort();
    onEnd(error);
  };
  if (withdrawn?.aborted) end(credentialWithdrawn());
  else withdrawn?.addEventListener('abort', () => end(credentialWithdrawn()), { once: true, signal: until });
  if (expiresAt !== undefined) atExpiry(expiresAt, until, () => end(credentialExpired()));
  return true;
}

/**
 * `events` until the credential of `principal` ends (it expires, or it is
 * withdrawn: see {@link whenCredentialEnds}): then the stream ends with
 * {@link credentialExpired} or {@link credentialWithdrawn} (the binding
 * writes it as its unauthenticated error), the subscription behind
 * `events` is ended (`return()`, and `abort`, when given, is aborted with
 * the error); the task goes on. A principal whose credential neither
 * expires nor can be withdrawn passes `events` through as they are.
 */
export function untilCredentialExpires<T>(events: AsyncIterable<T>, principal: Principal | undefined, abort?: AbortController): AsyncIterable<T> {
  if (expiryOf(principal) === undefined && !withdrawalOf(principal)) return events;
  return {
    async *[Symbol.asyncIterator]() {
      const done = new AbortController();
      const expired = new Promise<never>((_, reject) =>
        whenCredentialEnds(principal, abort ? AbortSignal.any([done.signal, abort.signal]) : done.signal, reject),
      );
      expired.catch(() => undefined);
      const iterator = events[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = iterator.next();
          const outcome = await Promise.race([next, expired]).catch((error: unknown) => {
            next.catch(() => undefined);
            abort?.abort(error);
            throw error;
          });
          if (outcome.done) return;
          yield outcome.value;
        }
      } finally {
        done.abort();
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
      }
    },
  };
}
