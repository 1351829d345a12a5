import type * as grpc from '@grpc/grpc-js';
import type { MethodName, ServerCall, TaskService, TextMapGetterLike } from '@taskwire/core';
import { RPC_SYSTEM, startServerCall } from '@taskwire/core';
import type { GrpcCallContext, SurfaceCall } from './call.js';

/** Reads trace context (`traceparent`, `tracestate`) from a call's metadata. */
const METADATA_GETTER: TextMapGetterLike<grpc.Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

const CALLS = new WeakMap<GrpcCallContext, ServerCall>();

/**
 * Starts the server span and metrics of one gRPC call (see core's
 * `startServerCall`), parented on the `traceparent` in its metadata; a
 * stream's telemetry is found again with {@link streamTelemetryOf}.
 */
export function startGrpcCall(service: TaskService, method: MethodName, call: SurfaceCall, context: GrpcCallContext): ServerCall | undefined {
  const request = call.request as { params?: unknown };
  const observed = startServerCall(service.telemetry, RPC_SYSTEM.grpc, method, request.params, context, call.metadata, METADATA_GETTER);
  if (observed) CALLS.set(context, observed);
  return observed;
}

/** The telemetry {@link startGrpcCall} started for this call, if any. */
export function streamTelemetryOf(context: GrpcCallContext): ServerCall | undefined {
  return CALLS.get(context);
}
