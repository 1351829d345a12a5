import type { Part, Struct } from '@taskwire/core';

/**
 * The metadata key of every message this package writes. Its value says
 * what the message is to the adapter when it rebuilds the model's messages
 * from a task's history:
 * - `{ kind: 'progress' }`: a status update (reasoning, a tool call or
 *   result); left out of the model's messages (the turn's own messages
 *   carry the same content);
 * - `{ kind: 'turn', messages, usage?, approvals? }`: the agent message that
 *   ends a turn (the completion message, or the input-required question of
 *   an approval); `messages` are the turn's model messages as the AI SDK
 *   returned them (`responseMessages`, JSON), replayed as they are.
 */
export const META_KEY = 'taskwire.ai-sdk';

/** The `kind` of a message's {@link META_KEY} metadata. */
export type MessageKind = 'progress' | 'turn';

/** Token counts of a run, as the task's messages and events carry them (`metadata[META_KEY].usage`). */
export interface UsageRecord {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
}

/**
 * The data parts of the agent's status updates (each `{ data: <one of
 * these>, mediaType: 'application/json' }`):
 * - `reasoning`: the model's reasoning text, one part per reasoning block;
 * - `tool-call`: the model called a tool with `input`;
 * - `tool-result`: its `output` (`preliminary: true` for the progress an
 *   async generator tool yields before its final output);
 * - `tool-output-denied`: the call was denied (by the user or a policy);
 * - `tool-approval-request`: in the input-required message: the call waits
 *   for approval (answer with {@link ApprovalAnswerData}, or the text
 *   `approve` / `deny`).
 */
export type ProgressData =
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'tool-call'; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | { readonly type: 'tool-result'; readonly toolCallId: string; readonly toolName: string; readonly output: unknown; readonly preliminary?: boolean }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string; readonly toolName: string }
  | ApprovalRequestData;

/** A tool call waiting for approval: a data part of the input-required message. */
export interface ApprovalRequestData {
  readonly type: 'tool-approval-request';
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  /** Why the tool asks, when its approval rule said. */
  readonly reason?: string;
}

/**
 * The user's answer to one {@link ApprovalRequestData}, as a data part of
 * the next message on the task. Approvals left unanswered are denied.
 */
export interface ApprovalAnswerData {
  readonly type: 'tool-approval-response';
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
}

/** A JSON data part with this package's shape. */
export function dataPart(data: ProgressData | ApprovalAnswerData): Part {
  return { data: toJson(data) as object, mediaType: 'application/json' };
}

/** The metadata of a message of `kind`, with `fields` beside the kind. */
export function messageMeta(kind: MessageKind, fields: Record<string, unknown> = {}): Struct {
  return { [META_KEY]: toJson({ kind, ...fields }) as Struct };
}

/** The {@link META_KEY} metadata of a message, if it has some. */
export function metaOf(metadata: Struct | undefined): ({ kind?: MessageKind } & Record<string, unknown>) | undefined {
  const value = metadata?.[META_KEY];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { kind?: MessageKind }) : undefined;
}

/**
 * `value` as plain JSON: bytes (Uint8Array, ArrayBuffer) become base64
 * strings (the AI SDK reads base64 strings as file data), URLs their href,
 * `undefined` fields are dropped, and anything else JSON cannot hold
 * (functions, symbols) is left out.
 */
export function toJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => {
      if (v instanceof Uint8Array) return bytesToBase64(v);
      if (v instanceof ArrayBuffer) return bytesToBase64(new Uint8Array(v));
      if (isSerializedBuffer(v)) return bytesToBase64(Uint8Array.from(v.data));
      if (typeof v === 'bigint') return v.toString();
      return v;
    }) ?? 'null',
  );
}

/** A Node Buffer as its own `toJSON` gives it (which runs before a replacer sees it). */
function isSerializedBuffer(v: unknown): v is { type: 'Buffer'; data: number[] } {
  return v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data);
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
