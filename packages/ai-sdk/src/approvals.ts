import type { Message } from '@taskwire/core';
import { textOf } from '@taskwire/core';
import type { ToolApprovalResponse, ToolModelMessage } from 'ai';
import type { ApprovalAnswerData, ApprovalRequestData } from './shapes.js';

const APPROVE = /^\s*(approve[ds]?|approval|yes|y|ok|okay|allow(ed)?|go ahead)\b/i;
const DENY = /^\s*(deny|denied|no|n|reject(ed)?|decline[ds]?|cancel)\b/i;

function isAnswer(data: unknown): data is ApprovalAnswerData {
  const d = data as Partial<ApprovalAnswerData> | null;
  return d !== null && typeof d === 'object' && d.type === 'tool-approval-response' && typeof d.approvalId === 'string' && typeof d.approved === 'boolean';
}

/**
 * The tool message that answers `pending` approval requests from the user's
 * `message`: its `tool-approval-response` data parts answer the calls they
 * name; otherwise its text does: `approve` (or yes, ok, allow) approves
 * every pending call, `deny` (or no, reject, cancel) denies them, and any
 * other text denies them with that text as the reason (the model reads it).
 * A call the message does not answer is denied.
 */
export function answerApprovals(pending: readonly ApprovalRequestData[], message: Message): ToolModelMessage {
  const answers = new Map<string, ApprovalAnswerData>();
  for (const part of message.parts) if ('data' in part && isAnswer(part.data)) answers.set(part.data.approvalId, part.data);
  const text = textOf(message).trim();
  const byText: Omit<ApprovalAnswerData, 'type' | 'approvalId'> | undefined =
    answers.size > 0
      ? undefined
      : APPROVE.test(text)
        ? { approved: true }
        : DENY.test(text)
          ? { approved: false, reason: 'The user denied this call' }
          : { approved: false, reason: text ? `The user answered: ${text}` : 'The user did not approve this call' };
  const content: ToolApprovalResponse[] = pending.map((request) => {
    const answer = answers.get(request.approvalId) ?? byText ?? { approved: false, reason: 'The user did not answer this approval' };
    return {
      type: 'tool-approval-response',
      approvalId: request.approvalId,
      approved: answer.approved,
      ...(answer.reason !== undefined && { reason: answer.reason }),
    };
  });
  return { role: 'tool', content };
}

/** The question of an input-required message for `pending` calls: one line per call. */
export function approvalQuestion(pending: readonly ApprovalRequestData[]): string {
  const lines = pending.map((p) => `- ${p.toolName} ${JSON.stringify(p.input)}${p.reason ? ` (${p.reason})` : ''}`);
  const what = pending.length === 1 ? 'this tool call' : 'these tool calls';
  return `Approve ${what}? Answer "approve" or "deny".\n${lines.join('\n')}`;
}
