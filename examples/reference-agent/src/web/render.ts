import type { TaskRouting, ViewArtifact } from '@taskwire/client';
import type { Message, Part } from '@taskwire/core';
import type { Turn } from './turns.js';
import { stateLabel } from './turns.js';

type Attrs = Record<string, string | undefined>;

/** A DOM element with attributes and children (text is always set as text, never parsed as HTML). */
function el(tag: string, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** One part as the page shows it: text as text, data as JSON, links to http(s) URLs, a note for bytes. */
function renderPart(part: Part): HTMLElement {
  if ('text' in part) return el('div', { class: 'text' }, part.text);
  if ('data' in part) return el('pre', { class: 'data' }, JSON.stringify(part.data, null, 2));
  if ('url' in part) {
    const safe = /^https?:\/\//i.test(part.url);
    const label = part.filename ?? part.url;
    return safe ? el('a', { href: part.url, target: '_blank', rel: 'noopener noreferrer' }, label) : el('span', {}, label);
  }
  return el('div', { class: 'note' }, `[${part.filename ?? 'file'}${part.mediaType ? `, ${part.mediaType}` : ''}]`);
}

function renderMessage(message: Message): HTMLElement {
  const who = message.role === 'ROLE_USER' ? 'user' : 'agent';
  return el('div', { class: `msg ${who}`, 'data-role': who, 'data-message-id': message.messageId }, ...message.parts.map(renderPart));
}

function renderArtifact(entry: ViewArtifact): HTMLElement {
  const { artifact, complete } = entry;
  const title = el('div', { class: 'artifact-name' }, artifact.name ?? artifact.artifactId, complete ? '' : el('span', { class: 'streaming' }, ' streaming…'));
  return el(
    'div',
    { class: 'artifact', 'data-artifact-id': artifact.artifactId, 'data-complete': String(complete) },
    title,
    el('div', { class: 'artifact-body' }, ...artifact.parts.map(renderPart)),
  );
}

/** The header of a turn: its task id, its state, and the tasks it follows up on. */
function renderTurnHeader(turn: Turn): HTMLElement {
  const label = stateLabel(turn.state);
  const header = el(
    'header',
    {},
    el('span', { class: 'label' }, turn.taskId === undefined ? 'new task' : 'task'),
    turn.taskId === undefined ? '' : el('code', { class: 'task-id' }, turn.taskId),
    el('span', { class: `state state-${label}`, 'data-state': turn.state ?? '' }, label),
  );
  if (turn.referenceTaskIds.length > 0) {
    header.append(el('span', { class: 'refs' }, 'follows up on ', ...turn.referenceTaskIds.map((id) => el('code', { class: 'ref' }, id.slice(0, 8)))));
  }
  return header;
}

/** One turn: header, messages, then artifacts and the progress of slow work. */
export function renderTurn(turn: Turn): HTMLElement {
  const node = el(
    'article',
    { class: 'turn', 'data-task-id': turn.taskId, 'data-state': turn.state },
    renderTurnHeader(turn),
    ...turn.messages.map(renderMessage),
    ...turn.artifacts.map(renderArtifact),
  );
  if (turn.progress) {
    const { current, total } = turn.progress;
    const bar = el('progress', { max: String(total), value: String(current) });
    node.append(el('div', { class: 'progress', 'data-current': String(current), 'data-total': String(total) }, bar, ` ${current} / ${total}`));
  }
  return node;
}

/** Where each artifact box of the log is scrolled, by task and artifact id, and whether it is at its end. */
function artifactScrolls(log: HTMLElement): Map<string, { top: number; atEnd: boolean }> {
  const scrolls = new Map<string, { top: number; atEnd: boolean }>();
  log.querySelectorAll<HTMLElement>('.artifact').forEach((box) => {
    const body = box.querySelector('.artifact-body') as HTMLElement;
    const key = `${box.closest('article')?.dataset.taskId}/${box.dataset.artifactId}`;
    scrolls.set(key, { top: body.scrollTop, atEnd: body.scrollHeight - body.scrollTop - body.clientHeight < 4 });
  });
  return scrolls;
}

/**
 * Replaces the log's content with `turns`, keeping it scrolled to the end
 * when it was there. An artifact box follows its newest chunk (also once the
 * artifact is complete) unless the reader scrolled it up, which is kept.
 */
export function renderLog(log: HTMLElement, turns: readonly Turn[]): void {
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const scrolls = artifactScrolls(log);
  log.replaceChildren(...turns.map(renderTurn));
  if (turns.length === 0) {
    log.append(el('p', { class: 'empty' }, 'Say something to the agent. Try "provide a sunset quote", then answer "insta", then "make it shorter".'));
  }
  log.querySelectorAll<HTMLElement>('.artifact').forEach((box) => {
    const body = box.querySelector('.artifact-body') as HTMLElement;
    const before = scrolls.get(`${box.closest('article')?.dataset.taskId}/${box.dataset.artifactId}`);
    // A new box follows its chunks while they stream; a box seen before keeps following, or stays where it was read.
    const follow = before ? before.atEnd : box.dataset.complete === 'false';
    body.scrollTop = follow ? body.scrollHeight : (before?.top ?? 0);
  });
  if (atEnd) log.scrollTop = log.scrollHeight;
}

/** What the next message will do, in words (seed 000's task-id rule, as the conversation decides it). */
export function describeRoute(route: TaskRouting, state: string | undefined): string {
  const short = (id: string | undefined) => (id ?? '').slice(0, 8);
  if (route.action === 'continue') return `Your next message continues task ${short(route.taskId)} (${state ?? 'interrupted'}).`;
  if (route.action === 'follow-up') return `Your next message starts a new task that references ${route.referenceTaskIds?.map(short).join(', ')}.`;
  return route.contextId ? 'Your next message starts a new task in this conversation.' : 'Your next message starts a new conversation.';
}
