import type { Principal } from '@taskwire/core';
import { A2AError, systemClock } from '@taskwire/core';
import type { WebSocket } from 'ws';
import { closeCodeOf, closeReasonOf } from './close-codes.js';

/**
 * When the credential behind `principal` ends: its `expiresAt` (ms since
 * the epoch, as `jwtAuth` of `@taskwire/auth` sets it from the token's
 * `exp`) when that is a finite number; otherwise `undefined` (it does not
 * end while the connection lasts).
 */
export function expiryOf(principal: Principal | undefined): number | undefined {
  const at = principal?.['expiresAt'];
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

/** `Unauthenticated` for a connection whose credential has expired (RFC 6750 `invalid_token`, `tokenError: expired`). */
export function credentialExpired(): A2AError {
  return new A2AError('Unauthenticated', 'The credential of this connection has expired; reconnect with a fresh one', { error: 'invalid_token', tokenError: 'expired' });
}

/** Throws {@link credentialExpired} when `expiresAt` has passed: no call runs on an expired credential. */
export function assertNotExpired(expiresAt: number | undefined): void {
  if (expiresAt !== undefined && Date.now() >= expiresAt) throw credentialExpired();
}

/**
 * Closes `socket` with 4401 and `UNAUTHENTICATED: The credential of this
 * connection has expired; ...` once `expiresAt` is reached (streams on it
 * end; their tasks go on). The timer goes when the socket closes first.
 */
export function closeAtExpiry(socket: WebSocket, expiresAt: number): void {
  const close = () => {
    const error = credentialExpired();
    socket.close(closeCodeOf(error), closeReasonOf(error));
  };
  const left = expiresAt - Date.now();
  if (left <= 0) return close();
  // The clock waits out an expiry further off than one timer takes; the socket's own close stops the wait (a rejection, ignored).
  const closed = new AbortController();
  socket.once('close', () => closed.abort());
  systemClock.sleep(left, closed.signal).then(close, () => undefined);
}
