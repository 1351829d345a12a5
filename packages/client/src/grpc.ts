/**
 * `@taskwire/client/grpc`: the A2A gRPC binding's client transport (Node
 * only; needs the optional peer dependency `@taskwire/server-grpc`, which
 * holds the one copy of the generated protobuf code and its converters).
 */
export { grpcTransport } from '@taskwire/server-grpc/client';
export type { GrpcTransportOptions } from '@taskwire/server-grpc/client';
