import type * as grpc from '@grpc/grpc-js';
import type { AuthPolicy, CallContext, Principal } from '@taskwire/core';
import { A2AError, authenticateRequest, negotiateVersion } from '@taskwire/core';
import { GRPC_PROTOCOL_VERSION, headersOf, METADATA } from './metadata.js';

// What the server adapter reads from a grpc-js call besides its message.

/** What unary and streaming server calls share: metadata and the 'cancelled' event. */
export type SurfaceCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;

/**
 * The core context of a call: the caller authenticated from metadata with
 * the server's auth hooks, the requested version (none or 1.x; anything
 * else is VersionNotSupported) and extensions, and the call's signal.
 */
export function contextOf(call: SurfaceCall, auth: AuthPolicy | undefined, callSignal: CallSignal): CallContext | Promise<CallContext> {
  const requested = first(call, METADATA.version);
  let version: string = GRPC_PROTOCOL_VERSION;
  if (requested !== undefined && requested.trim() !== '') {
    version = negotiateVersion(requested);
    if (version !== GRPC_PROTOCOL_VERSION) {
      throw new A2AError(
        'VersionNotSupported',
        `lf.a2a.v1.A2AService speaks A2A ${GRPC_PROTOCOL_VERSION}, not ${requested}; send a2a-version: ${GRPC_PROTOCOL_VERSION} (or none), or use this agent's JSON-RPC interface for 0.3`,
        { requestedVersion: requested },
      );
    }
  }
  const requestedExtensions = call.metadata.get(METADATA.extensions);
  const extensions = requestedExtensions.length
    ? requestedExtensions.flatMap((value) => String(value).split(',')).map((uri) => uri.trim()).filter(Boolean)
    : undefined;
  const context = (principal: Principal | undefined): CallContext => ({
    principal,
    version,
    extensions,
    get signal() {
      return callSignal.signal;
    },
  });
  // Without an auth policy there is nothing to wait for: no promise, no extra tick.
  return auth ? authenticateRequest(auth, { headers: headersOf(call.metadata) }).then(context) : context(undefined);
}

/** The first text value of a metadata key. */
function first(call: SurfaceCall, key: string): string | undefined {
  const value = call.metadata.get(key)[0];
  return value === undefined ? undefined : String(value);
}

/** The abort reason of a call the client cancelled or let expire (one shared instance: an abort is not an error here). */
const CALL_ENDED = Object.freeze({ reason: 'The gRPC call was cancelled by the client or its deadline passed' });

/**
 * The signal of one call, made on first use (most unary rpcs never wait, so
 * never pay for one): it aborts when the client cancels the call or its
 * deadline passes. grpc-js also reports 'cancelled' after every finished
 * call, so `done()` detaches first and a call that ended normally never
 * aborts.
 */
export class CallSignal {
  private controller: AbortController | undefined;
  private readonly onCancel = () => this.controller?.abort(CALL_ENDED);

  constructor(private readonly call: SurfaceCall) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.call.cancelled) this.controller.abort(CALL_ENDED);
      else this.call.once('cancelled', this.onCancel);
    }
    return this.controller.signal;
  }

  done(): void {
    if (this.controller) this.call.off('cancelled', this.onCancel);
  }
}

/** SubscribeToTask's resume point from metadata: a number, or the raw text (which validation rejects naming afterSequence). */
export function afterSequenceOf(call: SurfaceCall): number | string | undefined {
  const text = first(call, METADATA.afterSequence)?.trim();
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}
