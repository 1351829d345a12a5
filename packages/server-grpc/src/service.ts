import * as grpc from '@grpc/grpc-js';
import type { AuthPolicy, Logger, MethodName, StreamEvent, StreamMethodName, TaskService, UnaryMethodName } from '@taskwire/core';
import { A2AError, GRPC_STATUS, METHOD_NAMES, untilCredentialExpires } from '@taskwire/core';
import { afterSequenceOf, GrpcCallContext } from './call.js';
import { startGrpcCall, streamTelemetryOf } from './call-telemetry.js';
import { encodeStatusDetails, encodeStreamEvent, forTrailers, RPC_CODECS } from './convert.js';
import { METADATA } from './metadata.js';

/** How {@link addA2AService} serves a {@link TaskService}. */
export interface A2AServiceOptions {
  /**
   * Who may call, read from the call's metadata (`authorization`,
   * `x-api-key`, ...) with the same hooks as @taskwire/server-http. A
   * rejected caller gets UNAUTHENTICATED.
   */
  readonly auth?: AuthPolicy;
  /** Receives unexpected failures (reported to the caller as INTERNAL without their details). */
  readonly logger?: Logger;
}

/** What a request deserializer hands to a handler: the raw params, or why the bytes could not be read. */
type Decoded = { readonly params: unknown } | { readonly error: unknown };

/** One stream item as the handler writes it. */
interface Outgoing {
  readonly event: StreamEvent;
  readonly withSequence: boolean;
}

/**
 * The `lf.a2a.v1.A2AService` definition over core types: every rpc of the
 * method table with its generated path, decoding requests to raw params
 * (validated later by the service) and encoding core results.
 */
function serviceDefinition(): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const method of METHOD_NAMES) {
    const codec = RPC_CODECS[method];
    const stream = codec.kind === 'stream';
    definition[method] = {
      path: codec.path,
      requestStream: false,
      responseStream: stream,
      requestSerialize: (params) => codec.request.encode(params as never),
      requestDeserialize: (bytes): Decoded => {
        try {
          return { params: codec.request.decode(bytes) };
        } catch (error) {
          return { error };
        }
      },
      responseSerialize: stream
        ? (item) => encodeStreamEvent((item as Outgoing).event, (item as Outgoing).withSequence)
        : (result) => codec.response.encode(result as never),
      responseDeserialize: (bytes) => codec.response.decode(bytes),
    };
  }
  return definition;
}

/** A gRPC status for an error: A2A errors keep their code and details; anything else is INTERNAL. */
function toStatus(error: unknown, method: MethodName, logger: Logger | undefined): Partial<grpc.StatusObject> {
  let a2a: A2AError;
  if (A2AError.is(error)) {
    a2a = error;
  } else {
    logger?.error({ error }, `gRPC ${method} failed`);
    a2a = new A2AError('Internal', `The agent failed while handling ${method}; the server log has the details`);
  }
  a2a = forTrailers(a2a);
  const metadata = new grpc.Metadata();
  metadata.set(METADATA.statusDetails, encodeStatusDetails(a2a));
  return { code: GRPC_STATUS[a2a.grpcStatus], details: a2a.message, metadata };
}

function paramsOf(request: unknown): unknown {
  const decoded = request as Decoded;
  if ('error' in decoded) throw decoded.error;
  return decoded.params;
}

/** Resolves when the stream can take more data, or the call ended. */
function drained(call: grpc.ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.on('drain', done);
    signal.addEventListener('abort', done);
  });
}

/**
 * The handlers of every rpc over `service`. Unary rpcs answer once; the two
 * streaming rpcs write every event in order and end when the task reaches a
 * terminal or interrupted state. A client that cancels, or whose deadline
 * passes, ends its own stream only: the task keeps running.
 */
function handlers(service: TaskService, options: A2AServiceOptions): grpc.UntypedServiceImplementation {
  const { auth, logger } = options;
  // Per call: one context object and the two settle callbacks; each rpc's body is made once, here.
  const unary = (method: UnaryMethodName): grpc.handleUnaryCall<unknown, unknown> => {
    const body = (call: grpc.ServerUnaryCall<unknown, unknown>, context: GrpcCallContext) =>
      service.unary(method, paramsOf(call.request), context);
    return (call, callback) => {
      const context = new GrpcCallContext(call);
      const observed = startGrpcCall(service, method, call, context);
      context.run(auth, body).then(
        (result) => {
          context.done();
          observed?.ok(result);
          context.sendActivated();
          callback(null, result);
        },
        (error: unknown) => {
          context.done();
          observed?.fail(error);
          callback(toStatus(error, method, logger) as grpc.ServiceError);
        },
      );
    };
  };
  const stream = (method: StreamMethodName): grpc.handleServerStreamingCall<unknown, unknown> => {
    const body = async (call: grpc.ServerWritableStream<unknown, unknown>, context: GrpcCallContext) => {
      const signal = context.signal;
      const withSequence = call.metadata.get(METADATA.streamSequence)[0]?.toString() === '1';
      let params = paramsOf(call.request);
      const after = method === 'SubscribeToTask' ? afterSequenceOf(call) : undefined;
      if (after !== undefined) params = { ...(params as object), afterSequence: after };
      const opened = await service.stream(method, params, context);
      context.sendActivated();
      // A stream opened with a credential that has an `exp` ends then, with UNAUTHENTICATED.
      const events = untilCredentialExpires(streamTelemetryOf(context)?.follow(opened) ?? opened, context.principal);
      for await (const event of events) {
        if (signal.aborted) break;
        if (!call.write({ event, withSequence } satisfies Outgoing)) await drained(call, signal);
      }
    };
    return (call) => {
      const context = new GrpcCallContext(call);
      const observed = startGrpcCall(service, method, call, context);
      context.run(auth, body).then(
        () => {
          context.done();
          observed?.ok(undefined);
          if (!call.cancelled) call.end();
        },
        (error: unknown) => {
          context.done();
          observed?.fail(error);
          if (!call.cancelled) call.emit('error', toStatus(error, method, logger));
        },
      );
    };
  };
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of METHOD_NAMES) {
    implementation[method] =
      RPC_CODECS[method].kind === 'stream' ? stream(method as StreamMethodName) : unary(method as UnaryMethodName);
  }
  return implementation;
}

/**
 * Mounts `lf.a2a.v1.A2AService` on an existing `grpc.Server`, serving
 * every A2A rpc through `service`. Errors map to the spec's gRPC status
 * codes with a `google.rpc.ErrorInfo` in `grpc-status-details-bin`; invalid
 * requests are INVALID_ARGUMENT naming the bad field. Message size limits
 * are the server's own (`grpc.max_receive_message_length`, set when it is
 * constructed; {@link serveGrpc} sets them for you).
 */
export function addA2AService(server: grpc.Server, service: TaskService, options: A2AServiceOptions = {}): void {
  server.addService(serviceDefinition(), handlers(service, options));
}
