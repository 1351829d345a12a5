import type { Principal } from '@taskwire/core';
import { whenCredentialEnds } from '@taskwire/core';
import type { WebSocket } from 'ws';
import { closeCodeOf, closeReasonOf } from './close-codes.js';

/**
 * Closes `socket` with 4401 once the credential of `principal` ends: at
 * its expiry (`UNAUTHENTICATED: The credential of this connection has
 * expired; ...`) or when it is withdrawn (`UNAUTHENTICATED: The key that
 * signed this credential was withdrawn ...`). Streams on it end; their
 * tasks go on. The wait (core's `whenCredentialEnds`, shared with the HTTP
 * and gRPC streams) goes when the socket closes first.
 */
export function closeWhenCredentialEnds(socket: WebSocket, principal: Principal | undefined): void {
  const closed = new AbortController();
  socket.once('close', () => closed.abort());
  whenCredentialEnds(principal, closed.signal, (error) => socket.close(closeCodeOf(error), closeReasonOf(error)));
}
