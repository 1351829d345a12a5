// A2A parts, messages and tasks as MCP tool-result content.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Message, Part, Task, TaskState } from '@taskwire/core';

/** One MCP content block of a tool result. */
export type McpContent = CallToolResult['content'][number];

/** What the bridge says a task (or a direct message) is, for the model to continue with: placed in a result's `_meta`. */
export interface TaskMeta {
  readonly taskId?: string;
  readonly contextId?: string;
  /** The A2A state in the lowercase form models read best (`completed`, `input-required`, ...). */
  readonly state?: string;
}

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateName(state: TaskState): string {
  return state.replace(/^TASK_STATE_/, '').toLowerCase().replaceAll('_', '-');
}

/** The text of a message's text parts, joined by newlines (empty when it has none). */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).flatMap((p) => ('text' in p ? [p.text] : [])).join('\n');
}

function fileName(part: Part, fallback: string): string {
  if (part.filename) return part.filename;
  if ('url' in part) {
    const last = part.url.split(/[?#]/, 1)[0]!.split('/').filter(Boolean).pop();
    if (last) return decodeURIComponent(last);
  }
  return fallback;
}

/**
 * One part as an MCP content block: text as `text`; inline bytes as `image`
 * or `audio` by media type, other bytes as an embedded `resource` (its URI
 * under `uriBase`); a URL as a `resource_link` (never fetched). Data parts
 * give no block (they go to `structuredContent`, see {@link contentOf}).
 */
export function partContent(part: Part, uriBase: string, index: number): McpContent | undefined {
  const mimeType = part.mediaType;
  if ('text' in part) return { type: 'text', text: part.text };
  if ('raw' in part) {
    if (mimeType?.startsWith('image/')) return { type: 'image', data: part.raw, mimeType };
    if (mimeType?.startsWith('audio/')) return { type: 'audio', data: part.raw, mimeType };
    const name = fileName(part, `file-${index}`);
    return { type: 'resource', resource: { uri: `${uriBase}/files/${encodeURIComponent(name)}`, blob: part.raw, ...(mimeType && { mimeType }) } };
  }
  if ('url' in part) return { type: 'resource_link', uri: part.url, name: fileName(part, `file-${index}`), ...(mimeType && { mimeType }) };
  return undefined;
}

/**
 * The MCP result of some A2A parts: content blocks in order, and the data
 * parts as `structuredContent` (a lone object data part as itself, otherwise
 * `{ data: [values] }`) with their JSON also as text for clients that do
 * not read structured content.
 */
export function contentOf(parts: readonly Part[], uriBase: string): { content: McpContent[]; structuredContent?: Record<string, unknown> } {
  const content: McpContent[] = [];
  const data: unknown[] = [];
  parts.forEach((part, index) => {
    if ('data' in part) data.push(part.data);
    else {
      const block = partContent(part, uriBase, index);
      if (block) content.push(block);
    }
  });
  if (data.length === 0) return { content };
  const lone = data.length === 1 && typeof data[0] === 'object' && data[0] !== null && !Array.isArray(data[0]);
  const structuredContent = lone ? (data[0] as Record<string, unknown>) : { data };
  content.push({ type: 'text', text: JSON.stringify(structuredContent) });
  return { content, structuredContent };
}

/** The parts a task shows its caller: every artifact's parts, then the status message's. */
export function partsOfTask(task: Task): Part[] {
  return [...(task.artifacts ?? []).flatMap((a) => a.parts), ...(task.status.message?.parts ?? [])];
}

/** The `_meta` of a result about `task`. */
export function metaOfTask(task: Task): TaskMeta {
  return { taskId: task.id, contextId: task.contextId, state: stateName(task.status.state) };
}

/** The resource URI of task `id` (a session's tasks are resources under it). */
export function taskUri(id: string): string {
  return `a2a://tasks/${encodeURIComponent(id)}`;
}

/** A tool result showing `task` (content, structured content, `_meta`); `isError` as given. */
export function taskResult(task: Task, note?: string, isError = false): CallToolResult {
  const { content, structuredContent } = contentOf(partsOfTask(task), taskUri(task.id));
  const meta = metaOfTask(task);
  const line = `A2A task ${task.id} (context ${task.contextId}): ${meta.state}.${note ? ` ${note}` : ''}`;
  return {
    content: [...content, { type: 'text', text: line }],
    ...(structuredContent && { structuredContent }),
    _meta: { ...meta },
    ...(isError && { isError: true }),
  };
}

/** A tool result showing a direct agent message (an answer without a task). */
export function messageResult(message: Message): CallToolResult {
  const { content, structuredContent } = contentOf(message.parts, `a2a://messages/${encodeURIComponent(message.messageId)}`);
  return {
    content: content.length > 0 ? content : [{ type: 'text', text: '(the agent answered with an empty message)' }],
    ...(structuredContent && { structuredContent }),
    _meta: { ...(message.contextId && { contextId: message.contextId }), ...(message.taskId && { taskId: message.taskId }) },
  };
}

/** A tool error result with `text` (and `_meta` when a task is known). */
export function errorResult(text: string, meta?: TaskMeta): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, ...(meta && { _meta: { ...meta } }) };
}
