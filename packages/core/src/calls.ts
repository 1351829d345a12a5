import type { ExtensionActivation } from './extensions.js';
import type { StreamResponse } from './schema/index.js';

/*
 * What a call is, for every layer that handles one (the service, the
 * transports, telemetry, push, auth): who calls and in what scope, what a
 * server stream yields, and the name of our own protocol binding. It sits
 * below all of them, so none of them imports another for these.
 */

/** Who is calling, as an authentication hook established it. `id` scopes tasks. */
export interface Principal {
  readonly id: string;
  readonly [claim: string]: unknown;
}

/**
 * What a transport knows about one call besides its params: the caller, the
 * tenant (from the path or the request), the protocol version, requested
 * extensions, and the call's own `signal`. Aborting `signal` (a dropped
 * connection) ends that call's stream; it never cancels the task.
 */
export interface CallContext {
  readonly principal?: Principal | undefined;
  readonly tenant?: string | undefined;
  readonly version?: string | undefined;
  readonly extensions?: readonly string[] | undefined;
  /**
   * Where the agent's activated extensions go: a transport that reports them
   * (a response header, metadata, its reply envelope) makes one from the
   * requested {@link extensions} and seals it when it writes the answer.
   * Without it the agent still sees what was requested, and reports nothing.
   */
  readonly activation?: ExtensionActivation | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * When true, a message naming an unknown taskId creates the task with that
   * id (v0.3 clients pick new task ids themselves) instead of TaskNotFound;
   * a task id owned by another caller is still TaskNotFound. Per call: the
   * v0.3 compatibility path sets it, v1.0 calls leave it unset.
   */
  readonly clientTaskIds?: boolean | undefined;
  /**
   * The call's `Idempotency-Key` (HTTP header, gRPC metadata
   * `idempotency-key`, the WebSocket binding's `idempotency-key` input
   * member), as sent. A service that honours it (`protocol.v1_1`) makes a
   * first SendMessage with a key idempotent: sent again with the same key
   * by the same caller it answers with the task the first made and runs
   * nothing again (see `TaskServiceOptions.protocol`).
   */
  readonly idempotencyKey?: string | undefined;
}

/**
 * The store owner key of a call: tenant and principal id. Tasks created by a
 * call are visible only to calls with the same key; anonymous calls without a
 * tenant share the key `''`.
 */
export function ownerOf(context: CallContext, tenant?: string): string {
  const t = tenant || context.tenant || '';
  const p = context.principal?.id ?? '';
  return t || p ? `${t}\u001f${p}` : '';
}

/**
 * One item of a server stream: a stream response and the sequence number of
 * the task event it reflects (the resume point a transport sends as SSE
 * `id:`, a tRPC tracked id or gRPC metadata). A stream that answers with a
 * message and no task carries it with sequence 0.
 */
export interface StreamEvent {
  readonly sequence: number;
  readonly response: StreamResponse;
}

/**
 * The `protocolBinding` URI of Taskwire's WebSocket binding (A2A §5.8 names
 * a custom binding by a URI; a breaking change gets a new one): tRPC over
 * WebSocket, one procedure per v1.0 operation. The server
 * (`@taskwire/server-ws`) advertises it and the client
 * (`@taskwire/client/ws`) registers for it.
 */
export const WS_PROTOCOL_BINDING = 'https://taskwire.dev/bindings/trpc-ws/v1';
