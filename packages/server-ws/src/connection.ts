import { setMaxListeners } from 'node:events';
import type { Duplex } from 'node:stream';
import type { Logger } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { TRPCError } from '@trpc/server';
import type { WebSocket } from 'ws';

/** The bounds every WebSocket connection is held to. */
export interface ConnectionLimits {
  /**
   * Bytes the server may hold for a connection whose reader is slow (the
   * socket's `bufferedAmount`). A frame about to be sent past this bound
   * disconnects the reader instead (its streams end; its tasks go on).
   * Default 8 MiB.
   */
  readonly maxBufferedBytes: number;
  /** Streams (SendStreamingMessage, SubscribeToTask) open at once on one connection. Default 100. */
  readonly maxSubscriptions: number;
  /** Largest frame a client may send; a bigger one closes the connection (1009). Default 16 MiB. */
  readonly maxMessageBytes: number;
  /**
   * How long a connection that announced connection params
   * (`?connectionParams=1`, as tRPC's client does when given some) may take
   * to send them; past it the connection is closed (4400, InvalidRequest)
   * instead of being held open unauthenticated. Default 10 000 ms.
   */
  readonly connectionParamsTimeoutMs: number;
}

/** The bounds used when none are given. */
export const DEFAULT_LIMITS: ConnectionLimits = {
  maxBufferedBytes: 8 * 1024 * 1024,
  maxSubscriptions: 100,
  maxMessageBytes: 16 * 1024 * 1024,
  connectionParamsTimeoutMs: 10_000,
};

/**
 * One connection's share of the server: a signal that aborts when the
 * connection closes, and the slots of its concurrent streams.
 */
export interface ConnectionSlots {
  /** Aborts when the connection closes. */
  readonly signal: AbortSignal;
  /** Takes a stream slot; throws a TOO_MANY_REQUESTS error carrying an A2A error when none is left. */
  acquire(): void;
  /** Gives a stream slot back. */
  release(): void;
}

/**
 * Bytes of replies held back before they are written at once; past this a
 * burst is written right away, so that corking only merges small frames.
 */
const COALESCE_BYTES = 64 * 1024;

/**
 * Holds a connection to its limits: every frame the server sends goes
 * through a check of the socket's buffered bytes, and a reader that lets
 * more than `maxBufferedBytes` pile up is disconnected (`terminate`, so
 * memory is freed at once) rather than buffered without bound. Frames sent
 * in the same turn of the event loop leave in one write (`transport`, the
 * connection's TCP socket, is corked until the turn ends or
 * {@link COALESCE_BYTES} are waiting), so that a busy connection costs one
 * system call per turn rather than one per reply or stream event; the
 * bytes and their order are unchanged, and the buffered-bytes check counts
 * only what the kernel did not take. Returns the connection's stream slots.
 */
export function guardConnection(socket: WebSocket, transport: Duplex, limits: ConnectionLimits, logger?: Logger): ConnectionSlots {
  const closed = new AbortController();
  // Every blocking call and stream of the connection listens to this one signal.
  setMaxListeners(0, closed.signal);
  socket.once('close', () => closed.abort());

  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    transport.uncork();
  };
  const send = socket.send.bind(socket) as (data: unknown, options: unknown, cb: unknown) => void;
  let overflowed = false;
  socket.send = ((data: unknown, options?: unknown, cb?: unknown) => {
    if (overflowed) return;
    if (socket.bufferedAmount > limits.maxBufferedBytes) flush();
    if (socket.bufferedAmount > limits.maxBufferedBytes) {
      overflowed = true;
      logger?.warn({
        bufferedAmount: socket.bufferedAmount,
        maxBufferedBytes: limits.maxBufferedBytes,
      }, 'Disconnecting a WebSocket reader that does not keep up');
      socket.terminate();
      return;
    }
    if (!corked) {
      corked = true;
      transport.cork();
      process.nextTick(flush);
    }
    send(data, options, cb);
    if (transport.writableLength >= COALESCE_BYTES) flush();
  }) as WebSocket['send'];

  let open = 0;
  return {
    signal: closed.signal,
    acquire() {
      if (open >= limits.maxSubscriptions) {
        const message = `This connection already has ${limits.maxSubscriptions} streams open (the server's limit); end one, or open another connection`;
        throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message, cause: new A2AError('Internal', message, { limit: String(limits.maxSubscriptions) }) });
      }
      open++;
    },
    release() {
      open--;
    },
  };
}
