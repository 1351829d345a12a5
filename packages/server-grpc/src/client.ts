import * as grpc from '@grpc/grpc-js';
import type { CallOptions, ErrorDetail, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import { A2AError, errorFromWire, GRPC_STATUS, parseExtensionsHeader } from '@taskwire/core';
import type { A2AErrorKind } from '@taskwire/core';
import { decodeStatusDetails, decodeStreamEvent, RPC_CODECS } from './convert.js';
import { DEFAULT_MAX_MESSAGE_BYTES, GRPC_PROTOCOL_VERSION, METADATA } from './metadata.js';

/** How {@link grpcTransport} connects. */
export interface GrpcTransportOptions {
  /** The agent's gRPC address: `host:port` as in its agent card (a `grpc://` prefix is accepted). */
  readonly url: string;
  /** Channel credentials; default insecure (plaintext). Use `grpc.credentials.createSsl()` for TLS. */
  readonly credentials?: grpc.ChannelCredentials;
  /** Metadata sent with every call, e.g. `{ 'x-api-key': key }` or `{ authorization: 'Bearer …' }`. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Request and response size limit in bytes (default 4 MiB). */
  readonly maxMessageBytes?: number;
  /** Further grpc-js channel options. */
  readonly channelOptions?: grpc.ChannelOptions;
}

const identity = (bytes: Buffer): Buffer => bytes;

/** The A2A kind a gRPC status stands for when the server sent no A2A ErrorInfo. */
const KIND_OF_STATUS: Partial<Record<number, A2AErrorKind>> = {
  [GRPC_STATUS.INVALID_ARGUMENT]: 'InvalidParams',
  [GRPC_STATUS.NOT_FOUND]: 'TaskNotFound',
  [GRPC_STATUS.UNAUTHENTICATED]: 'Unauthenticated',
  [GRPC_STATUS.PERMISSION_DENIED]: 'PermissionDenied',
  [GRPC_STATUS.UNIMPLEMENTED]: 'MethodNotFound',
  [GRPC_STATUS.RESOURCE_EXHAUSTED]: 'PayloadTooLarge',
};

/**
 * The A2AError a failed call stands for: rebuilt from the
 * `google.rpc.ErrorInfo` in `grpc-status-details-bin` when the server sent
 * one, else from the gRPC status code (the code's name is in the metadata
 * as `grpcStatus`).
 */
function errorOf(error: grpc.ServiceError, method: string): A2AError {
  const message = error.details || error.message;
  const bin = error.metadata?.get(METADATA.statusDetails)[0];
  const details: ErrorDetail[] = bin instanceof Buffer ? (decodeStatusDetails(bin)?.details ?? []) : [];
  const info = details.find((d) => d['@type'].endsWith('google.rpc.ErrorInfo'));
  if (typeof info?.reason === 'string' && A2AError.kindOfReason(info.reason)) return errorFromWire({ message, details });
  const status = grpc.status[error.code] ?? String(error.code);
  if (error.code === grpc.status.DEADLINE_EXCEEDED) {
    return new A2AError('Internal', `${method} did not finish before its deadline (gRPC DEADLINE_EXCEEDED); raise timeoutMs or resubscribe`, { grpcStatus: status }, details);
  }
  if (error.code === grpc.status.UNAVAILABLE) {
    return new A2AError('Internal', `The agent's gRPC endpoint is unavailable (${message}); check the url and that the server runs`, { grpcStatus: status }, details);
  }
  return new A2AError(KIND_OF_STATUS[error.code] ?? 'Internal', `${method} failed with gRPC ${status}: ${message}`, { grpcStatus: status }, details);
}

/**
 * A2A over gRPC, as core's {@link Transport}: speaks `lf.a2a.v1.A2AService`
 * to any A2A gRPC server (Taskwire or not), sending `a2a-version: 1.0`.
 * Errors are thrown as A2AErrors rebuilt from the status details. Aborting
 * a call's `signal` rejects a unary call with the signal's reason and ends
 * a stream quietly; neither cancels the task on the server.
 *
 * Stream events carry the server's sequence numbers when the server is
 * Taskwire (it appends them on request, see proto/taskwire/v1/stream.proto);
 * pass one back as SubscribeToTask's `afterSequence` to resume. Servers
 * that send none give `sequence` 0 (as the SSE transports do without `id:`).
 */
export function grpcTransport(options: GrpcTransportOptions): Transport & { close(): Promise<void> } {
  const limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const client = new grpc.Client(options.url.replace(/^grpc:\/\//, ''), options.credentials ?? grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': limit,
    'grpc.max_send_message_length': limit,
    ...options.channelOptions,
  });

  const metadataFor = (call: CallOptions | undefined, extra?: Record<string, string>): grpc.Metadata => {
    const metadata = new grpc.Metadata();
    metadata.set(METADATA.version, GRPC_PROTOCOL_VERSION);
    for (const source of [options.metadata, call?.headers, extra]) {
      if (source) for (const [key, value] of Object.entries(source)) metadata.set(key.toLowerCase(), value);
    }
    return metadata;
  };
  const callOptions = (call: CallOptions | undefined): grpc.CallOptions =>
    call?.timeoutMs ? { deadline: Date.now() + call.timeoutMs } : {};

  return {
    unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      const codec = RPC_CODECS[method];
      const signal = call?.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<ResultOf<M>>((resolve, reject) => {
        // Encoding first makes a param the wire cannot carry fail with its own InvalidParams.
        const bytes = codec.request.encode(params);
        const onAbort = () => pending.cancel();
        const pending = client.makeUnaryRequest<Buffer, ResultOf<M>>(
          codec.path,
          identity,
          codec.response.decode,
          bytes,
          metadataFor(call),
          callOptions(call),
          (error, result) => {
            signal?.removeEventListener('abort', onAbort);
            if (signal?.aborted) reject(signal.reason);
            else if (error) reject(errorOf(error, method));
            else {
              call?.onExtensions?.(activated);
              resolve(result as ResultOf<M>);
            }
          },
        );
        let activated: readonly string[] = [];
        if (call?.onExtensions) pending.on('metadata', (metadata: grpc.Metadata) => (activated = activatedOf(metadata)));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },

    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      const codec = RPC_CODECS[method];
      const signal = call?.signal;
      if (signal?.aborted) return;
      const extra: Record<string, string> = { [METADATA.streamSequence]: '1' };
      const after = (params as { afterSequence?: number }).afterSequence;
      if (after !== undefined) extra[METADATA.afterSequence] = String(after);
      const bytes = codec.request.encode(params);
      const stream = client.makeServerStreamRequest(codec.path, identity, decodeStreamEvent, bytes, metadataFor(call, extra), callOptions(call));
      const onAbort = () => stream.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
      let activated: readonly string[] | undefined;
      if (call?.onExtensions) stream.on('metadata', (metadata: grpc.Metadata) => (activated = activatedOf(metadata)));
      let told = false;
      try {
        for await (const item of stream as AsyncIterable<ReturnType<typeof decodeStreamEvent>>) {
          if (!told) {
            told = true;
            call?.onExtensions?.(activated ?? []);
          }
          yield { sequence: item.sequence ?? 0, response: item.response };
        }
      } catch (error) {
        if (signal?.aborted) return;
        throw errorOf(error as grpc.ServiceError, method);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        // Leaving early (break, abort) cancels the call; its CANCELLED status is expected, not an error.
        stream.on('error', () => {});
        stream.cancel();
      }
    },

    async close() {
      client.close();
    },
  };
}

/** The extensions a server's response metadata says it activated (`a2a-extensions`). */
function activatedOf(metadata: grpc.Metadata): readonly string[] {
  return parseExtensionsHeader(metadata.get(METADATA.extensions).map(String)) ?? [];
}
