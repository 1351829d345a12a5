import type * as js from '@a2a-js/sdk';
import type { Artifact, Message, Part, Struct, Task, TaskState, TaskStatus } from '@taskwire/core';
import { TaskStateSchema } from '@taskwire/core';

/*
 * Taskwire's v1.0 ProtoJSON shapes <-> @a2a-js/sdk 1.x's generated
 * (ts-proto) shapes: numeric enums, parts as `content.$case`, bytes as
 * Buffer, absent strings as '' and absent lists as []. Only the enums'
 * numbers are needed at runtime, so nothing of @a2a-js/sdk is loaded.
 */

/** Task states in proto order: `TASK_STATE_SUBMITTED` is 1 ... `TASK_STATE_AUTH_REQUIRED` is 8, as a2a-js numbers them. */
const STATES: readonly TaskState[] = TaskStateSchema.options;

/** a2a-js's number of a task state (`TaskState.TASK_STATE_WORKING` is 2). */
export function toJsState(state: TaskState): js.TaskState {
  return (STATES.indexOf(state) + 1) as js.TaskState;
}

/** The task state an a2a-js number names; undefined for UNSPECIFIED or an unknown number. */
export function fromJsState(state: js.TaskState | undefined): TaskState | undefined {
  return state === undefined ? undefined : STATES[(state as number) - 1];
}

const bytesOf = (base64: string): Uint8Array => {
  const B = (globalThis as { Buffer?: { from(s: string, e: string): Uint8Array } }).Buffer;
  if (B) return B.from(base64, 'base64');
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
};
const base64Of = (bytes: Uint8Array): string => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};
/** The type a2a-js gives bytes (Buffer on Node); a Uint8Array elsewhere. */
type RawBytes = Extract<NonNullable<js.Part['content']>, { $case: 'raw' }>['value'];
const meta = (metadata: Struct | undefined) => (metadata === undefined ? undefined : { ...metadata });

/** An a2a-js part from one of ours. */
export function toJsPart(part: Part): js.Part {
  const content: js.Part['content'] =
    'text' in part
      ? { $case: 'text', value: part.text }
      : 'raw' in part
        ? { $case: 'raw', value: bytesOf(part.raw) as RawBytes }
        : 'url' in part
          ? { $case: 'url', value: part.url }
          : { $case: 'data', value: part.data };
  return { content, metadata: meta(part.metadata), filename: part.filename ?? '', mediaType: part.mediaType ?? '' };
}

/** Our part from an a2a-js part; undefined for a part with no content. */
export function fromJsPart(part: js.Part): Part | undefined {
  const extra = {
    ...(part.metadata !== undefined && { metadata: part.metadata as Struct }),
    ...(part.filename && { filename: part.filename }),
    ...(part.mediaType && { mediaType: part.mediaType }),
  };
  const content = part.content;
  switch (content?.$case) {
    case 'text':
      return { text: content.value, ...extra };
    case 'raw':
      return { raw: base64Of(content.value), ...extra };
    case 'url':
      return { url: content.value, ...extra };
    case 'data':
      return { data: content.value ?? null, ...extra };
    default:
      return undefined;
  }
}

const fromJsParts = (parts: readonly js.Part[] | undefined): Part[] => (parts ?? []).flatMap((p) => fromJsPart(p) ?? []);

/** An a2a-js message from one of ours. */
export function toJsMessage(message: Message): js.Message {
  return {
    messageId: message.messageId,
    contextId: message.contextId ?? '',
    taskId: message.taskId ?? '',
    role: (message.role === 'ROLE_USER' ? 1 : 2) as js.Message['role'],
    parts: message.parts.map(toJsPart),
    metadata: meta(message.metadata),
    extensions: [...(message.extensions ?? [])],
    referenceTaskIds: [...(message.referenceTaskIds ?? [])],
  };
}

/** Our message from an a2a-js message (role defaults to the agent's). */
export function fromJsMessage(message: js.Message): Message {
  return {
    messageId: message.messageId || crypto.randomUUID(),
    role: (message.role as number) === 1 ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: fromJsParts(message.parts),
    ...(message.contextId && { contextId: message.contextId }),
    ...(message.taskId && { taskId: message.taskId }),
    ...(message.metadata !== undefined && { metadata: message.metadata as Struct }),
    ...(message.extensions?.length && { extensions: [...message.extensions] }),
    ...(message.referenceTaskIds?.length && { referenceTaskIds: [...message.referenceTaskIds] }),
  };
}

/** An a2a-js artifact from one of ours. */
export function toJsArtifact(artifact: Artifact): js.Artifact {
  return {
    artifactId: artifact.artifactId,
    name: artifact.name ?? '',
    description: artifact.description ?? '',
    parts: artifact.parts.map(toJsPart),
    metadata: meta(artifact.metadata),
    extensions: [...(artifact.extensions ?? [])],
  };
}

/** Our artifact from an a2a-js artifact. */
export function fromJsArtifact(artifact: js.Artifact): Artifact {
  return {
    artifactId: artifact.artifactId || crypto.randomUUID(),
    parts: fromJsParts(artifact.parts),
    ...(artifact.name && { name: artifact.name }),
    ...(artifact.description && { description: artifact.description }),
    ...(artifact.metadata !== undefined && { metadata: artifact.metadata as Struct }),
    ...(artifact.extensions?.length && { extensions: [...artifact.extensions] }),
  };
}

/** An a2a-js task status from one of ours. */
export function toJsStatus(status: TaskStatus): js.TaskStatus {
  return { state: toJsState(status.state), message: status.message && toJsMessage(status.message), timestamp: status.timestamp };
}

/** An a2a-js task from one of ours (a fresh copy: the executor may change it). */
export function toJsTask(task: Task): js.Task {
  return {
    id: task.id,
    contextId: task.contextId,
    status: toJsStatus(task.status),
    artifacts: (task.artifacts ?? []).map(toJsArtifact),
    history: (task.history ?? []).map(toJsMessage),
    metadata: meta(task.metadata),
  };
}
