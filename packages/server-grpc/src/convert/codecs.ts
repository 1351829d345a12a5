import type { MethodName, ParamsOf, ResultOf, StreamEvent } from '@taskwire/core';
import { A2AError, METHOD_NAMES, METHODS } from '@taskwire/core';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { Empty } from '../gen/google/protobuf/empty.js';
import * as pb from '../gen/lf/a2a/v1/a2a.js';
import { StreamSequence } from '../gen/taskwire/v1/stream.js';
import { fromAgentCard, toAgentCard } from './agent-card.js';
import { fromSendMessageResponse, fromStreamResponse, fromTask, toSendMessageResponse, toStreamResponse, toTask } from './messages.js';
import * as req from './requests.js';

/** The bytes of a proto message type, read and written through the converters (core objects on one side). */
interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Uint8Array): T;
}

/** A Buffer over the same memory (no copy). */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** What ts-proto generates for each message type (its binary codec). */
interface MessageType<P> {
  encode(message: P, writer?: BinaryWriter): BinaryWriter;
  decode(input: BinaryReader | Uint8Array, length?: number): P;
}

/**
 * The writer every encode shares. Encoding is synchronous and `finish()`
 * copies the bytes out and resets it, so sharing is safe; its buffer then
 * grows once, not from empty for every message (which cost more than the
 * encoding itself).
 */
let shared = new BinaryWriter();
/** A message larger than this gets the next one a fresh writer, so that one large message does not pin its buffer. */
const KEEP_BUFFER_BYTES = 64 * 1024;

/**
 * Writes with the shared writer and returns the bytes. A throw half-way
 * (a value no proto field can take) abandons the writer, so the next
 * message never starts after another's partial bytes.
 */
function written(write: (writer: BinaryWriter) => unknown): Buffer {
  const writer = shared;
  let bytes: Uint8Array;
  try {
    write(writer);
    bytes = writer.finish();
  } catch (error) {
    shared = new BinaryWriter();
    throw error;
  }
  if (bytes.byteLength > KEEP_BUFFER_BYTES) shared = new BinaryWriter();
  return bufferOf(bytes);
}

/** Decodes UTF-8 and throws on malformed input; a leading U+FEFF is text, not a byte-order mark. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new Error('a string field is not valid UTF-8, as proto3 strings must be');
  }
}

/**
 * A reader of `bytes` that refuses a string field that is not UTF-8 (the
 * generated code would otherwise read it with U+FFFD in place of the bad
 * bytes, and act on a mangled id). ASCII strings never reach the decoder.
 */
function strictReader(bytes: Uint8Array): BinaryReader {
  return new BinaryReader(bytes, decodeUtf8);
}

function codec<P, C>(type: MessageType<P>, to: (value: C) => P, from: (message: P) => C): Codec<C> {
  return {
    encode(value) {
      const message = to(value);
      return written((writer) => type.encode(message, writer));
    },
    decode: (bytes) => from(type.decode(strictReader(bytes))),
  };
}

/**
 * One rpc of `lf.a2a.v1.A2AService`, in core terms: its path, and codecs
 * between bytes and the method table's params and results. Decoding does
 * not validate (the service does); it throws `InvalidRequest` when the bytes
 * are not the rpc's proto message (a string field that is not UTF-8
 * included).
 */
export interface RpcCodec<M extends MethodName> {
  readonly method: M;
  readonly path: string;
  readonly kind: 'unary' | 'stream';
  readonly request: Codec<ParamsOf<M>>;
  readonly response: Codec<ResultOf<M>>;
}

const sendRequest = codec(pb.SendMessageRequest, req.toSendMessageRequest, req.fromSendMessageRequest);
const streamResponse = codec(pb.StreamResponse, toStreamResponse, fromStreamResponse);
const task = codec(pb.Task, toTask, fromTask);
const pushConfig = codec(pb.TaskPushNotificationConfig, req.toPushConfig, req.fromPushConfig);
const pushConfigRef = codec(pb.GetTaskPushNotificationConfigRequest, req.toPushConfigRef, req.fromPushConfigRef);

const CODECS: { [M in MethodName]: { request: Codec<ParamsOf<M>>; response: Codec<ResultOf<M>> } } = {
  SendMessage: {
    request: sendRequest,
    response: codec(pb.SendMessageResponse, toSendMessageResponse, fromSendMessageResponse),
  },
  SendStreamingMessage: { request: sendRequest, response: streamResponse },
  GetTask: { request: codec(pb.GetTaskRequest, req.toGetTaskRequest, req.fromGetTaskRequest), response: task },
  ListTasks: {
    request: codec(pb.ListTasksRequest, req.toListTasksRequest, req.fromListTasksRequest),
    response: codec(pb.ListTasksResponse, req.toListTasksResponse, req.fromListTasksResponse),
  },
  CancelTask: { request: codec(pb.CancelTaskRequest, req.toCancelTaskRequest, req.fromCancelTaskRequest), response: task },
  SubscribeToTask: { request: codec(pb.SubscribeToTaskRequest, req.toSubscribeRequest, req.fromSubscribeRequest), response: streamResponse },
  CreateTaskPushNotificationConfig: { request: pushConfig as Codec<ParamsOf<'CreateTaskPushNotificationConfig'>>, response: pushConfig },
  GetTaskPushNotificationConfig: { request: pushConfigRef, response: pushConfig },
  ListTaskPushNotificationConfigs: {
    request: codec(pb.ListTaskPushNotificationConfigsRequest, req.toListPushConfigsRequest, req.fromListPushConfigsRequest),
    response: codec(pb.ListTaskPushNotificationConfigsResponse, req.toListPushConfigsResponse, req.fromListPushConfigsResponse),
  },
  DeleteTaskPushNotificationConfig: {
    // Same fields and numbers as the Get request message.
    request: pushConfigRef,
    response: codec(Empty, () => ({}), () => ({})),
  },
  GetExtendedAgentCard: {
    request: codec(pb.GetExtendedAgentCardRequest, req.toExtendedCardRequest, req.fromExtendedCardRequest),
    response: codec(pb.AgentCard, toAgentCard, fromAgentCard),
  },
};

function lowerFirst(name: string): keyof typeof pb.A2AServiceService {
  return (name[0]!.toLowerCase() + name.slice(1)) as keyof typeof pb.A2AServiceService;
}

function guarded<T>(method: string, inner: Codec<T>): Codec<T> {
  return {
    encode: inner.encode,
    decode(bytes) {
      try {
        return inner.decode(bytes);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new A2AError('InvalidRequest', `The ${method} request is not a valid protobuf message (${reason}); send an lf.a2a.v1 message`);
      }
    },
  };
}

/** The codec of every rpc, keyed by the method table's names (paths from the generated service). */
export const RPC_CODECS: { readonly [M in MethodName]: RpcCodec<M> } = Object.fromEntries(
  METHOD_NAMES.map((method) => {
    const generated = pb.A2AServiceService[lowerFirst(method)];
    const { request, response } = CODECS[method] as { request: Codec<unknown>; response: Codec<unknown> };
    return [method, { method, path: generated.path, kind: METHODS[method].kind, request: guarded(method, request), response }];
  }),
) as unknown as { readonly [M in MethodName]: RpcCodec<M> };

/**
 * Writes one stream item: the StreamResponse, followed by Taskwire's
 * `StreamSequence` field when `withSequence` (see proto/taskwire/v1/stream.proto).
 */
export function encodeStreamEvent(event: StreamEvent, withSequence: boolean): Buffer {
  const response = toStreamResponse(event.response);
  return written((writer) => {
    pb.StreamResponse.encode(response, writer);
    if (withSequence) StreamSequence.encode({ sequence: event.sequence }, writer);
  });
}

/** Reads one stream item: the StreamResponse and, when the server sent it, its sequence number. */
export function decodeStreamEvent(bytes: Uint8Array): { response: StreamEvent['response']; sequence: number | undefined } {
  return { response: fromStreamResponse(pb.StreamResponse.decode(strictReader(bytes))), sequence: StreamSequence.decode(bytes).sequence };
}
