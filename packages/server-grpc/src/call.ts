import * as grpc from '@grpc/grpc-js';
import type { AuthPolicy, CallContext, Principal } from '@taskwire/core';
import { A2AError, authenticateRequest, clientCertificateOf, ExtensionActivation, formatExtensionsHeader, negotiateVersion, NEXT_VERSION, parseExtensionsHeader } from '@taskwire/core';
import { GRPC_PROTOCOL_VERSION, headersOf, METADATA } from './metadata.js';

// What the server adapter reads from a grpc-js call besides its message.

/** What unary and streaming server calls share: metadata and the 'cancelled' event. */
export type SurfaceCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;

/** The abort reason of a call the client cancelled or let expire (one shared instance: an abort is not an error here). */
const CALL_ENDED = Object.freeze({ reason: 'The gRPC call was cancelled by the client or its deadline passed' });

/**
 * The core context of one gRPC call, one object per call: the caller
 * authenticated from metadata with the server's auth hooks, the requested
 * version (none or 1.x; anything else is VersionNotSupported),
 * extensions and `idempotency-key`, and the call's signal.
 *
 * The signal is made on first use (most unary rpcs never wait, so never pay
 * for one): it aborts when the client cancels the call or its deadline
 * passes. grpc-js also reports 'cancelled' after every finished call, so
 * {@link GrpcCallContext.done} detaches first and a call that ended
 * normally never aborts. The grpc-js call itself is private (not part of
 * the context core sees).
 */
export class GrpcCallContext<C extends SurfaceCall = SurfaceCall> implements CallContext {
  principal: Principal | undefined = undefined;
  version: string = GRPC_PROTOCOL_VERSION;
  extensions: readonly string[] | undefined = undefined;
  activation: ExtensionActivation | undefined = undefined;
  idempotencyKey: string | undefined = undefined;
  readonly #call: C;
  #controller: AbortController | undefined = undefined;
  #onCancel: (() => void) | undefined = undefined;

  constructor(call: C) {
    this.#call = call;
  }

  /**
   * Calls `body` with the grpc-js call and this context once the version,
   * extensions and caller are known: at once without an auth policy (no
   * promise, no extra tick), else once `auth` accepted the caller, which
   * happens before anything is read of the request. An unsupported
   * version, a rejected caller and a throw of `body` all come out as a
   * rejection, never a throw.
   */
  run<T>(auth: AuthPolicy | undefined, body: (call: C, context: this) => Promise<T>): Promise<T> {
    try {
      this.readMetadata();
      if (!auth) return body(this.#call, this);
      const peer = this.#call.getAuthContext?.().sslPeerCertificate;
      const certificate = clientCertificateOf(peer, peer !== undefined);
      return authenticateRequest(auth, { headers: headersOf(this.#call.metadata), certificate }).then((principal) => {
        this.principal = principal;
        return body(this.#call, this);
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The call's signal (made now if it was not yet): aborts when the client cancels or the deadline passes. */
  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#call.cancelled) controller.abort(CALL_ENDED);
    else this.#call.once('cancelled', (this.#onCancel = () => controller.abort(CALL_ENDED)));
    return controller.signal;
  }

  /** Marks the call finished: its signal, if one was made, never aborts from now on. */
  done(): void {
    if (this.#onCancel) this.#call.off('cancelled', this.#onCancel);
  }

  /** Reads `a2a-version` (the common `1.0` without negotiating; `1.1` for the service to serve or refuse), `a2a-extensions` and `idempotency-key`. */
  private readMetadata(): void {
    const metadata = this.#call.metadata;
    const requested = first(metadata, METADATA.version);
    if (requested !== undefined && requested !== GRPC_PROTOCOL_VERSION && requested.trim() !== '') {
      const negotiated = negotiateVersion(requested, { next: true });
      // 1.1 goes on to the service, which serves it or refuses it (see TaskServiceOptions.protocol).
      if (negotiated === NEXT_VERSION) this.version = NEXT_VERSION;
      else if (negotiated !== GRPC_PROTOCOL_VERSION) {
        throw new A2AError(
          'VersionNotSupported',
          `lf.a2a.v1.A2AService speaks A2A ${GRPC_PROTOCOL_VERSION}, not ${requested}; send a2a-version: ${GRPC_PROTOCOL_VERSION} (or none), or use this agent's JSON-RPC interface for 0.3`,
          { requestedVersion: requested },
        );
      }
    }
    const requestedExtensions = metadata.get(METADATA.extensions);
    if (requestedExtensions.length > 0) {
      this.extensions = parseExtensionsHeader(requestedExtensions.map(String));
      if (this.extensions) this.activation = new ExtensionActivation(this.extensions);
    }
    this.idempotencyKey = first(metadata, METADATA.idempotencyKey);
  }

  /**
   * Sends the response's initial metadata with `a2a-extensions`, the
   * extensions the agent activated (sealing the activation), when there
   * are any: before a unary answer, and before a stream's first message.
   */
  sendActivated(): void {
    const activated = this.activation?.seal();
    if (!activated?.length) return;
    const metadata = new grpc.Metadata();
    metadata.set(METADATA.extensions, formatExtensionsHeader(activated));
    this.#call.sendMetadata(metadata);
  }
}

/** The first text value of a metadata key. */
function first(metadata: grpc.Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return value === undefined ? undefined : String(value);
}

/** SubscribeToTask's resume point from metadata: a number, or the raw text (which validation rejects naming afterSequence). */
export function afterSequenceOf(call: SurfaceCall): number | string | undefined {
  const text = first(call.metadata, METADATA.afterSequence)?.trim();
  if (text === undefined) return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}
