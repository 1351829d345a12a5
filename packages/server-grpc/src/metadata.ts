import type { Metadata } from '@grpc/grpc-js';

/**
 * The gRPC metadata keys Taskwire reads and writes. The `a2a-*` keys are
 * the spec's service parameters; the `taskwire-*` keys carry the stream
 * resume point, which the A2A gRPC binding has no field for.
 */
export const METADATA = {
  /** A2A-Version service parameter. */
  version: 'a2a-version',
  /** A2A-Extensions service parameter (comma-separated URIs). */
  extensions: 'a2a-extensions',
  /** Request: the `Idempotency-Key` of a first SendMessage (see `CallContext.idempotencyKey`). */
  idempotencyKey: 'idempotency-key',
  /** Where the google.rpc.Status of an error travels. */
  statusDetails: 'grpc-status-details-bin',
  /** Request: `1` asks a Taskwire server to append each event's sequence number (proto/taskwire/v1/stream.proto). */
  streamSequence: 'taskwire-stream-sequence',
  /** Request (SubscribeToTask): resume after this sequence number, replaying only later events. */
  afterSequence: 'taskwire-after-sequence',
} as const;

/** The largest message either side sends or accepts unless told otherwise: 4 MiB (gRPC's usual receive limit). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** The protocol version served on `lf.a2a.v1.A2AService`. */
export const GRPC_PROTOCOL_VERSION = '1.0';

/**
 * The text entries of a call's metadata as lower-case header-like pairs
 * (what core's auth hooks read); binary (`-bin`) entries are left out and
 * a repeated key keeps all its values, joined with `, `.
 */
export function headersOf(metadata: Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (key.endsWith('-bin')) continue;
    const all = metadata.get(key);
    out[key] = all.length > 1 ? all.map(String).join(', ') : String(value);
  }
  return out;
}
