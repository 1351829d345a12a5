import type { Artifact, Message, Part, StreamResponse, Task, TaskState } from '@taskwire/core';
import { isSettled } from '@taskwire/core';
import { normalizeEvent } from './normalize.js';

/** An artifact as a UI shows it: joined from its chunks, with the task it belongs to. */
export interface ViewArtifact {
  readonly taskId: string | undefined;
  readonly artifact: Artifact;
  /**
   * False while more chunks may come: after `lastChunk: false` or an
   * `append` without `lastChunk`, and for the newest artifact of a task
   * snapshot whose task is still submitted or working (a reloaded page
   * cannot tell whether it is finished). True once its last chunk came or
   * its task settled (terminal or interrupted).
   */
  readonly complete: boolean;
}

/** `metadata.progress` of the latest status update, when it has `current` and `total`. */
export interface ViewProgress {
  readonly current: number;
  readonly total: number;
}

/**
 * What a UI shows of a conversation: its messages (each with the `taskId`
 * it belongs to), its artifacts, and where the latest task is.
 */
export interface ConversationView {
  readonly messages: readonly Message[];
  readonly artifacts: readonly ViewArtifact[];
  readonly contextId: string | undefined;
  /** The task of the latest task event. */
  readonly taskId: string | undefined;
  readonly state: TaskState | undefined;
  /** True while the latest task is submitted or working. */
  readonly streaming: boolean;
  readonly progress: ViewProgress | undefined;
}

/** Options of {@link reduceView}. */
export interface ViewOptions {
  /**
   * What a full Task with history replaces: `task` (default) its own
   * messages, leaving other tasks of the conversation in place; `all` the
   * whole view (for servers that send a session's effective history as one
   * Task, e.g. after a rewind).
   */
  readonly replace?: 'task' | 'all';
}

/** The empty view. */
export const EMPTY_VIEW: ConversationView = {
  messages: [],
  artifacts: [],
  contextId: undefined,
  taskId: undefined,
  state: undefined,
  streaming: false,
  progress: undefined,
};

const owned = (message: Message, taskId: string | undefined): Message =>
  message.taskId !== undefined || taskId === undefined ? message : { ...message, taskId };

/** Updates the message with the same id in place, or appends it. */
function upsert(messages: readonly Message[], message: Message): Message[] {
  const at = messages.findIndex((m) => m.messageId === message.messageId);
  if (at < 0) return [...messages, message];
  const next = [...messages];
  next[at] = message;
  return next;
}

/** The messages of a task snapshot: its history, then its status message, once each by messageId. */
function blockOf(task: Task): Message[] {
  let block: Message[] = [];
  for (const m of [...(task.history ?? []), ...(task.status?.message ? [task.status.message] : [])]) block = upsert(block, owned(m, task.id));
  return block;
}

function replaceTaskMessages(messages: readonly Message[], task: Task, block: Message[]): Message[] {
  const ids = new Set(block.map((m) => m.messageId));
  const gone = (m: Message) => m.taskId === task.id || ids.has(m.messageId);
  const at = messages.findIndex(gone);
  const kept = messages.filter((m) => !gone(m));
  const insertAt = at < 0 ? kept.length : messages.slice(0, at).filter((m) => !gone(m)).length;
  return [...kept.slice(0, insertAt), ...block, ...kept.slice(insertAt)];
}

const plainText = (p: Part): p is Part & { text: string } => 'text' in p && p.mediaType === undefined && p.filename === undefined && p.metadata === undefined;

/** Appends chunk parts to an artifact's parts, joining adjacent plain text into one part. */
export function joinParts(existing: readonly Part[], incoming: readonly Part[]): Part[] {
  const out = [...existing];
  for (const part of incoming) {
    const last = out[out.length - 1];
    if (last && plainText(last) && plainText(part)) out[out.length - 1] = { text: last.text + part.text };
    else out.push(part);
  }
  return out;
}

function onTask(view: ConversationView, task: Task, options: ViewOptions): ConversationView {
  const block = blockOf(task);
  const hasHistory = (task.history?.length ?? 0) > 0;
  let messages: readonly Message[];
  if (hasHistory) messages = options.replace === 'all' ? block : replaceTaskMessages(view.messages, task, block);
  else messages = block.reduce<Message[]>((all, m) => upsert(all, m), [...view.messages]);
  let artifacts = view.artifacts;
  const state = task.status?.state ?? view.state;
  if (Array.isArray(task.artifacts) || options.replace === 'all') {
    const list = task.artifacts ?? [];
    // Only the newest artifact of a running task may still be streaming; one already seen complete stays so.
    const running = task.status?.state !== undefined && !isSettled(task.status.state);
    const mine = list.map((artifact, i) => ({
      taskId: task.id,
      artifact: { ...artifact, parts: joinParts([], artifact.parts) },
      complete: !running || i < list.length - 1 || view.artifacts.some((a) => a.taskId === task.id && a.artifact.artifactId === artifact.artifactId && a.complete),
    }));
    artifacts = options.replace === 'all' ? mine : [...view.artifacts.filter((a) => a.taskId !== task.id), ...mine];
  }
  return { ...view, messages, artifacts, contextId: task.contextId || view.contextId, taskId: task.id ?? view.taskId, state, streaming: state !== undefined && !isSettled(state), progress: view.taskId === task.id ? view.progress : undefined };
}

function progressOf(metadata: Record<string, unknown> | undefined): ViewProgress | undefined {
  const p = metadata?.progress as { current?: unknown; total?: unknown } | undefined;
  return typeof p?.current === 'number' && typeof p.total === 'number' ? { current: p.current, total: p.total } : undefined;
}

function onResponse(view: ConversationView, response: StreamResponse, options: ViewOptions): ConversationView {
  if ('task' in response) return onTask(view, response.task, options);
  if ('message' in response) {
    const m = response.message;
    return { ...view, messages: upsert(view.messages, m), contextId: m.contextId || view.contextId };
  }
  if ('statusUpdate' in response) {
    const { taskId, contextId, status, metadata } = response.statusUpdate;
    const messages = status.message ? upsert(view.messages, owned(status.message, taskId)) : view.messages;
    const progress = progressOf(metadata) ?? (view.taskId === taskId ? view.progress : undefined);
    const settled = isSettled(status.state);
    // A settled task sends no more chunks: whatever of it was still streaming is complete now.
    const artifacts = settled && view.artifacts.some((a) => a.taskId === taskId && !a.complete)
      ? view.artifacts.map((a) => (a.taskId === taskId && !a.complete ? { ...a, complete: true } : a))
      : view.artifacts;
    // An agent that leaves the (required) contextId out or empty does not take the conversation out of its context.
    return { ...view, messages, artifacts, contextId: contextId || view.contextId, taskId, state: status.state, streaming: !settled, progress };
  }
  const { taskId, contextId, artifact, append, lastChunk } = response.artifactUpdate;
  const at = view.artifacts.findIndex((a) => a.taskId === taskId && a.artifact.artifactId === artifact.artifactId);
  const existing = at >= 0 ? view.artifacts[at] : undefined;
  const merged: Artifact = append && existing ? { ...existing.artifact, ...artifact, parts: joinParts(existing.artifact.parts, artifact.parts) } : artifact;
  const entry: ViewArtifact = { taskId, artifact: merged, complete: lastChunk ?? !append };
  const artifacts = [...view.artifacts];
  if (at >= 0) artifacts[at] = entry;
  else artifacts.push(entry);
  return { ...view, artifacts, contextId: contextId || view.contextId };
}

/**
 * The conversation-view reducer: pure, returns the next view. For each
 * event (any shape {@link normalizeEvent} recognises; anything else leaves
 * the view as it is):
 *
 * - a full Task with a non-empty history **replaces** its messages (history,
 *   then status message) instead of appending them, so a snapshot never
 *   duplicates what is shown (no "ABCA"); a Task without history only
 *   updates state, status message and artifacts;
 * - a status update appends its message, or updates it in place when the
 *   messageId is already shown; it sets the state and `progress`;
 * - an artifact update adds or replaces the artifact, or joins an `append`
 *   chunk to it (adjacent text parts become one text);
 * - a Message is appended, or updated in place by messageId.
 */
export function reduceView(view: ConversationView, event: unknown, options: ViewOptions = {}): ConversationView {
  const response = normalizeEvent(event);
  return response ? onResponse(view, response, options) : view;
}

/** The view of a sequence of events, from the empty view. */
export function viewOf(events: Iterable<unknown>, options: ViewOptions = {}): ConversationView {
  let view = EMPTY_VIEW;
  for (const event of events) view = reduceView(view, event, options);
  return view;
}

/**
 * The view of a conversation loaded as a list of tasks (e.g. ListTasks with a
 * contextId): every task's messages, once each by messageId, tasks in the
 * order given, and their artifacts.
 */
export function viewFromTasks(tasks: Iterable<Task>): ConversationView {
  return viewOf([...tasks].map((task) => ({ task })));
}
