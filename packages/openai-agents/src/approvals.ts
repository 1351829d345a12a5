import type { Message } from '@taskwire/core';
import { textOf } from '@taskwire/core';
import type { RunState, RunToolApprovalItem } from '@openai/agents';
import { remoteQuestionOf } from './remote-model.js';
import type { ApprovalAnswerData, ApprovalRequestData } from './shapes.js';

const APPROVING = /^\s*(approved?|yes|y|ok|okay|allow|go ahead)\b/i;

/** The call id of an approval item (its function call's `callId`, else its `id`). */
export function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  return raw.callId ?? raw.id ?? '';
}

/** The data part value of an approval item: the tool and its arguments. */
export function approvalRequest(item: RunToolApprovalItem): ApprovalRequestData {
  return { type: 'tool-approval-request', callId: callIdOf(item), toolName: item.name ?? 'tool', arguments: item.arguments };
}

/**
 * The text of an input-required message for `pending` calls: a remote
 * agent's question (of an `a2aTool`) as it asked it, and one line per call
 * that waits for approval.
 */
export function approvalQuestion(pending: readonly ApprovalRequestData[]): string {
  const questions = pending.flatMap((p) => remoteQuestionOf(p.arguments) ?? []);
  const calls = pending.filter((p) => !remoteQuestionOf(p.arguments));
  if (calls.length === 0 && questions.length === 1) return questions[0]!.question;
  const asked = questions.map((q) => `${q.agent} asks: ${q.question}`);
  const lines = calls.map((p) => `- ${p.toolName} ${p.arguments ?? ''}`.trimEnd());
  const header = calls.length === 0 ? [] : [`Approve ${calls.length === 1 ? 'this tool call' : 'these tool calls'}? Answer "approve" or "reject".`];
  return [...asked, ...header, ...lines].join('\n');
}

function isAnswer(data: unknown): data is ApprovalAnswerData {
  const d = data as Partial<ApprovalAnswerData> | null;
  return d !== null && typeof d === 'object' && d.type === 'tool-approval-response' && typeof d.callId === 'string' && typeof d.approved === 'boolean';
}

/**
 * Approves or rejects each interruption of `state` from the user's
 * `message`: its `tool-approval-response` data parts answer the calls they
 * name; otherwise its text answers them all: `approve` (or yes, ok, allow)
 * approves, anything else rejects, the text going to the model as the
 * reason. A call the data parts do not name is rejected. A remote agent's
 * question (of an `a2aTool`) takes the text as its answer (a rejection
 * whose message goes to the remote task).
 */
export function answerApprovals(state: RunState<any, any>, message: Message): void {
  const answers = new Map<string, ApprovalAnswerData>();
  for (const part of message.parts) if ('data' in part && isAnswer(part.data)) answers.set(part.data.callId, part.data);
  const text = textOf(message).trim();
  for (const item of state.getInterruptions()) {
    const answer = answers.get(callIdOf(item));
    if (remoteQuestionOf(item.arguments) && !answer && answers.size === 0) {
      state.reject(item, { message: text });
      continue;
    }
    const approved = answer ? answer.approved : answers.size === 0 && APPROVING.test(text);
    if (approved) state.approve(item);
    else state.reject(item, { message: answer?.reason ?? (text && answers.size === 0 ? `The user rejected this call: ${text}` : 'The user rejected this call') });
  }
}
