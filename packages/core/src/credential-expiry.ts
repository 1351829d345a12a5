// A credential that ends: what every binding does when the token a call or
// a stream was opened with reaches its `exp`.
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

/**
 * `events` until the credential of `principal` expires: then the stream
 * ends with {@link credentialExpired} (the binding writes it as its
 * unauthenticated error), the subscription behind `events` is ended
 * (`return()`, and `abort`, when given, is aborted with the error); the
 * task goes on. A principal without an expiry passes `events` through as
 * they are.
 */
export function untilCredentialExpires<T>(events: AsyncIterable<T>, principal: Principal | undefined, abort?: AbortController): AsyncIterable<T> {
  const expiresAt = expiryOf(principal);
  if (expiresAt === undefined) return events;
  return {
    async *[Symbol.asyncIterator]() {
      const done = new AbortController();
      const expired = new Promise<never>((_, reject) =>
        atExpiry(expiresAt, abort ? AbortSignal.any([done.signal, abort.signal]) : done.signal, () => reject(credentialExpired())),
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
