import type { ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';

/** The fields of grpc-js's own call object (1.14) the guard reads: the HTTP/2 stream and the request's `grpc-encoding`. */
interface BaseCall extends grpc.ServerInterceptingCallInterface {
  readonly stream?: ServerHttp2Stream;
  readonly incomingEncoding?: string;
  readonly nextCall?: grpc.ServerInterceptingCallInterface;
}

/** What a caller is told when a message claims a compression the call never declared. */
export const UNDECLARED_COMPRESSION_MESSAGE =
  'A request message has the compressed flag set but the call declares no compression (no grpc-encoding, or identity): ' +
  'send grpc-encoding naming the compression used, or send the message uncompressed';

/**
 * Follows gRPC's length-prefixed messages (1 flag byte, 4 length bytes,
 * the message) across the chunks they arrive in, and calls `onCompressed`
 * at the first message whose compressed flag is 1. Returns the function to
 * feed each chunk to, in order; it returns false once it has found one.
 */
export function compressedFlagScanner(onCompressed: () => void): (chunk: Uint8Array) => boolean {
  let prefixSeen = 0; // bytes of the current 5-byte prefix seen so far
  let length = 0;
  let bodyLeft = 0;
  let found = false;
  return (chunk) => {
    let at = 0;
    while (!found && at < chunk.length) {
      if (bodyLeft > 0) {
        const skip = Math.min(bodyLeft, chunk.length - at);
        bodyLeft -= skip;
        at += skip;
        continue;
      }
      const byte = chunk[at++]!;
      if (prefixSeen === 0 && byte === 1) {
        found = true;
        onCompressed();
      } else if (prefixSeen > 0) {
        length = length * 256 + byte;
      }
      if (++prefixSeen === 5) {
        bodyLeft = length;
        prefixSeen = 0;
        length = 0;
      }
    }
    return !found;
  };
}

/**
 * A grpc-js server interceptor that refuses, with INTERNAL, a call whose
 * request message has the compressed flag set while the call declares no
 * compression (no `grpc-encoding` header, or `identity`), as the gRPC
 * protocol requires (grpc-js alone hands such a message on as if it were
 * uncompressed). The handler never sees the message: the guard reads the
 * raw frames before grpc-js decodes them. Calls with a declared encoding
 * (gzip, deflate) and uncompressed messages pass untouched.
 *
 * {@link serveGrpc} installs it; put it first in `interceptors` of a
 * `grpc.Server` you run yourself ({@link addA2AService}). It reads
 * grpc-js 1.14's call internals, the version this package pins.
 */
export const refuseUndeclaredCompression: grpc.ServerInterceptor = (_method, call) => {
  let base = call as BaseCall;
  while (base.stream === undefined && base.nextCall !== undefined) base = base.nextCall as BaseCall;
  const { stream } = base;
  if (stream !== undefined && (base.incomingEncoding ?? 'identity') === 'identity') {
    const scan = compressedFlagScanner(() =>
      base.sendStatus({ code: grpc.status.INTERNAL, details: UNDECLARED_COMPRESSION_MESSAGE, metadata: null }),
    );
    // Runs before grpc-js's own listener on each chunk: once the status is sent, grpc-js drops the rest.
    const onData = (chunk: Buffer) => {
      if (!scan(chunk)) stream.off('data', onData);
    };
    stream.prependListener('data', onData);
  }
  // grpc-js chains interceptors through the call interface alone: pass the call on unwrapped.
  return call as grpc.ServerInterceptingCall;
};
