// The one place where generated protobuf code meets the rest of Taskwire.
//
// Everything under ./gen is produced by `pnpm gen` (ts-proto over proto/)
// and is imported only by the modules under ./convert, which turn proto
// messages into the core types of @taskwire/core and back, and bytes into
// either. The gRPC server and client transports use nothing else, and no
// generated type is part of this package's public API.

export { decodeStreamEvent, encodeStreamEvent, RPC_CODECS } from './convert/codecs.js';
export type { RpcCodec } from './convert/codecs.js';
export { decodeStatusDetails, encodeStatusDetails, forTrailers } from './convert/status.js';
export type { DecodedStatus } from './convert/status.js';
