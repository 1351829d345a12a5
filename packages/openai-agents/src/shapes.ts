import type { Message, Part, Struct } from '@taskwire/core';

/** The metadata key under which the adapter keeps what it needs with the task's messages. */
export const META_KEY = 'taskwire.openai-agents';

/** A tool call that waits for the user's approval, as the input-required message's data part carries it. */
export interface ApprovalRequestData {
  readonly type: 'tool-approval-request';
  readonly callId: string;
  readonly toolName: string;
  /** The call's arguments as the model gave them (a JSON string, for function tools). */
  readonly arguments: string | undefined;
}

/** The user's answer to one call, as a data part of the next message. */
export interface ApprovalAnswerData {
  readonly type: 'tool-approval-response';
  readonly callId: string;
  readonly approved: boolean;
  /** Sent to the model with a rejection. */
  readonly reason?: string;
}

/** A working status update's data part while the agent runs. */
export type ProgressData =
  | { readonly type: 'tool-call'; readonly callId?: string; readonly toolName: string; readonly arguments?: string }
  | { readonly type: 'tool-output'; readonly callId?: string; readonly output: unknown }
  | { readonly type: 'handoff'; readonly from: string; readonly to: string };

/** The run's token counts (the SDK's `Usage`), as the task's metadata carries them. */
export interface UsageRecord {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

/**
 * What an agent message of the adapter keeps in its metadata:
 * - `turn` (the completion): the run's `history`, the input of a follow-up;
 * - `interruption` (input-required): the serialised `RunState` and the
 *   calls that wait, so that any process serving the agent on the same
 *   store resumes the run;
 * both with the run's `usage`.
 */
export type TurnMeta =
  | { readonly kind: 'turn'; readonly history: unknown[]; readonly usage?: UsageRecord }
  | { readonly kind: 'interruption'; readonly state: string; readonly approvals: ApprovalRequestData[]; readonly usage?: UsageRecord };

/** `value` as plain JSON (class instances become their JSON form). */
export function toJson(value: unknown): {} | null {
  return JSON.parse(JSON.stringify(value) ?? 'null') as {} | null;
}

/** A data part of `value` (as plain JSON). */
export function dataPart(value: unknown): Part {
  return { data: toJson(value), mediaType: 'application/json' };
}

/** The adapter's metadata of a message, if it has some. */
export function metaOf(message: Pick<Message, 'metadata'>): TurnMeta | undefined {
  const meta = message.metadata?.[META_KEY] as TurnMeta | undefined;
  return meta && (meta.kind === 'turn' || meta.kind === 'interruption') ? meta : undefined;
}

/** Message metadata carrying `meta`. */
export function withMeta(meta: TurnMeta): Struct {
  return { [META_KEY]: toJson(meta) as Struct };
}
