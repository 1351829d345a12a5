import type { Message, Part, Task } from '@taskwire/core';
import type { ModelMessage, UserContent } from 'ai';
import { answerApprovals } from './approvals.js';
import type { ApprovalRequestData } from './shapes.js';
import { metaOf } from './shapes.js';

type UserPart = Exclude<UserContent, string>[number];

/**
 * One part of a user message as the model's content: text as text, `raw`
 * bytes and `url`s as files (with the part's `mediaType`, default
 * `application/octet-stream`, and `filename`), `data` as a text part
 * holding its JSON (every provider reads text; few take JSON files).
 */
export function userPart(part: Part): UserPart {
  if ('text' in part) return { type: 'text', text: part.text };
  const mediaType = part.mediaType || 'application/octet-stream';
  const filename = part.filename ? { filename: part.filename } : {};
  if ('raw' in part) return { type: 'file', data: part.raw, mediaType, ...filename };
  if ('url' in part) return { type: 'file', data: new URL(part.url), mediaType, ...filename };
  return { type: 'text', text: JSON.stringify(part.data) };
}

/** Text and data parts of an agent message as the assistant's text (its files are left out: assistant messages carry no user files). */
function assistantText(message: Message): string {
  return message.parts
    .map((part) => ('text' in part ? part.text : 'data' in part ? JSON.stringify(part.data) : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * A conversation's messages as the model's: user messages with their parts
 * ({@link userPart}); agent messages this package wrote at the end of a
 * turn replayed as the turn's own model messages (tool calls, results and
 * approvals included), its progress messages left out, other agent messages
 * as assistant text. A user message that follows an approval question
 * answers it (see `answerApprovals`): the loop continues from the stored
 * history alone, on whichever process runs the continuation.
 */
export function modelMessages(history: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let pending: readonly ApprovalRequestData[] | undefined;
  for (const message of history) {
    const meta = metaOf(message.metadata);
    if (message.role === 'ROLE_USER') {
      if (pending) {
        out.push(answerApprovals(pending, message));
        pending = undefined;
        continue;
      }
      out.push({ role: 'user', content: message.parts.map(userPart) });
      continue;
    }
    pending = undefined;
    if (meta?.kind === 'progress') continue;
    if (meta?.kind === 'turn' && Array.isArray(meta.messages)) {
      out.push(...(meta.messages as ModelMessage[]));
      if (Array.isArray(meta.approvals) && meta.approvals.length > 0) pending = meta.approvals as ApprovalRequestData[];
      continue;
    }
    const text = assistantText(message);
    if (text) out.push({ role: 'assistant', content: text });
  }
  return out;
}

/**
 * The messages of `tasks` (earlier tasks of a conversation, oldest first)
 * and then of `task`: each task's history with its current status message
 * (a task's last agent message is its status message until the next status
 * change moves it into the history).
 */
export function conversationOf(tasks: readonly Task[], task: Task): Message[] {
  const out: Message[] = [];
  const seen = new Set<string>();
  for (const t of [...tasks.filter((t) => t.id !== task.id), task]) {
    const messages = [...(t.history ?? []), ...(t.status.message ? [t.status.message] : [])];
    for (const m of messages) {
      if (seen.has(m.messageId)) continue;
      seen.add(m.messageId);
      out.push(m);
    }
  }
  return out;
}
