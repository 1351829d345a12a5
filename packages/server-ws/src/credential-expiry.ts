import { atExpiry, credentialExpired } from '@taskwire/core';
import type { WebSocket } from 'ws';
import { closeCodeOf, closeReasonOf } from './close-codes.js';

/**
 * Closes `socket` with 4401 and `UNAUTHENTICATED: The credential of this
 * connection has expired; ...` once `expiresAt` is reached (streams on it
 * end; their tasks go on). The wait (core's `atExpiry`, shared with the
 * HTTP and gRPC streams) goes when the socket closes first.
 */
export function closeAtExpiry(socket: WebSocket, expiresAt: number): void {
  const closed = new AbortController();
  socket.once('close', () => closed.abort());
  atExpiry(expiresAt, closed.signal, () => {
    const error = credentialExpired();
    socket.close(closeCodeOf(error), closeReasonOf(error));
  });
}
