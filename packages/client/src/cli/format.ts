import type { AgentCard, Artifact, Message, Part, Task, TaskState } from '@taskwire/core';
import { isTerminal, stateToV03 } from '@taskwire/core';
import type { ConversationView, ViewProgress } from '../view/reduce.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateLabel(state: TaskState | undefined): string {
  return state ? stateToV03(state) : 'unknown';
}

/** One part as text: text as is, data as JSON, files by name and link or size. */
export function partText(part: Part): string {
  if ('text' in part) return part.text;
  if ('data' in part) return JSON.stringify(part.data, null, 2);
  const name = part.filename ?? 'file';
  if ('url' in part) return `[${name}: ${part.url}]`;
  return `[${name}: ${Math.floor((part.raw.length * 3) / 4)} bytes${part.mediaType ? `, ${part.mediaType}` : ''}]`;
}

/** Parts as text, one after the other: a line break between two only when the first does not end with one (streamed chunks that carry their own line breaks get no blank lines between them). */
export function partsText(parts: readonly Part[]): string {
  return parts.map(partText).reduce((text, next, i) => (i === 0 || text.endsWith('\n') ? text + next : `${text}\n${next}`), '');
}

/** A message's parts as text. */
export function messageText(message: Pick<Message, 'parts'> | undefined): string {
  return partsText(message?.parts ?? []);
}

/** True when `part` is plain text (no metadata or file name) that a streamed chunk may continue. */
function plainText(part: Part): part is Part & { text: string } {
  return 'text' in part && part.metadata === undefined && part.filename === undefined;
}

/**
 * An artifact's parts as text, with adjacent plain text parts of one media
 * type joined as they are (the chunks of a streamed artifact: `The`,
 * ` mock`, ` model` read `The mock model`, as `stream` prints them), the
 * other parts on lines of their own as {@link partsText} puts them.
 */
export function artifactText(parts: readonly Part[]): string {
  const joined: Part[] = [];
  for (const part of parts) {
    const last = joined.at(-1);
    if (last !== undefined && plainText(last) && plainText(part) && last.mediaType === part.mediaType) joined[joined.length - 1] = { ...last, text: last.text + part.text };
    else joined.push(part);
  }
  return partsText(joined);
}

/** An artifact under a header line with its name; the chunks of a streamed artifact as one text ({@link artifactText}). */
export function artifactBlock(artifact: Artifact): string {
  const title = artifact.name ?? artifact.artifactId;
  const body = artifactText(artifact.parts);
  return `--- ${title} ---\n${body}${body.endsWith('\n') ? '' : '\n'}`;
}

/** `[#########...........] 12/50 24%` */
export function progressBar(progress: ViewProgress, width = 24): string {
  const ratio = progress.total > 0 ? Math.min(1, Math.max(0, progress.current / progress.total)) : 0;
  const done = Math.round(ratio * width);
  return `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${progress.current}/${progress.total} ${Math.round(ratio * 100)}%`;
}

/** The live status line of `watch`: state, progress, and the latest agent words while the task runs. */
export function statusLine(view: ConversationView): string {
  const progress = view.progress ? `  ${progressBar(view.progress)}` : '';
  const last = view.streaming ? [...view.messages].reverse().find((m) => m.role === 'ROLE_AGENT') : undefined;
  const said = last ? `  ${messageText(last).split('\n')[0]!.slice(0, 60)}` : '';
  return `${stateLabel(view.state)}${progress}${said}`;
}

/** A task for people: a header line, the conversation, the status message, the artifacts. */
export function taskBlock(task: Task): string {
  const lines = [`task ${task.id}  ${stateLabel(task.status.state)}  (context ${task.contextId})`];
  const history = task.history ?? [];
  const messages = task.status.message && !history.some((m) => m.messageId === task.status.message!.messageId) ? [...history, task.status.message] : history;
  for (const m of messages) lines.push(`${m.role === 'ROLE_USER' ? 'user' : 'agent'}: ${messageText(m)}`);
  const out = `${lines.join('\n')}\n`;
  return out + (task.artifacts ?? []).map(artifactBlock).join('');
}

/** One line per task for `list`. */
export function taskRow(task: Task): string {
  const when = task.status.timestamp ?? '';
  const said = messageText(task.status.message ?? task.history?.at(-1)).split('\n')[0]!.slice(0, 60);
  return `${task.id}  ${stateLabel(task.status.state).padEnd(14)}  ${when.padEnd(24)}  ${said}`;
}

/** A card for people: name, interfaces, capabilities, skills. */
export function cardBlock(card: AgentCard): string {
  const lines = [`${card.name} ${card.version ?? ''}`.trimEnd(), card.description ?? '', '', 'Interfaces:'];
  for (const i of card.supportedInterfaces) lines.push(`  ${i.protocolBinding} ${i.protocolVersion}  ${i.url}${i.tenant ? `  (tenant ${i.tenant})` : ''}`);
  const caps = card.capabilities ?? {};
  lines.push('', `Streaming: ${caps.streaming ? 'yes' : 'no'}   Push notifications: ${caps.pushNotifications ? 'yes' : 'no'}`);
  if (card.skills?.length) {
    lines.push('', 'Skills:');
    for (const s of card.skills) lines.push(`  ${s.name}: ${s.description}${s.examples?.length ? ` (e.g. ${s.examples.map((e) => `"${e}"`).join(', ')})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The exit code a task's final state calls for: 1 when the agent failed, rejected or canceled it. */
export function exitCodeOf(state: TaskState | undefined): 0 | 1 {
  return state !== undefined && isTerminal(state) && state !== 'TASK_STATE_COMPLETED' ? 1 : 0;
}
