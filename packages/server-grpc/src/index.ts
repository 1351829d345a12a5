export { addA2AService } from './service.js';
export type { A2AServiceOptions } from './service.js';
export { DEFAULT_GRPC_TIMEOUTS, grpcAddress, grpcInterface, serveGrpc } from './serve.js';
export type { GrpcServerHandle, GrpcTimeouts, ServeGrpcOptions } from './serve.js';
export { DEFAULT_MAX_MESSAGE_BYTES, GRPC_PROTOCOL_VERSION, METADATA } from './metadata.js';
export { refuseUndeclaredCompression, UNDECLARED_COMPRESSION_MESSAGE } from './compression-guard.js';
