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

/** The optional fields a part, message or artifact gets only when set (assigned, not spread: no throwaway objects). */
type Optional = { -readonly [K in 'metadata' | 'filename' | 'mediaType' | 'contextId' | 'taskId' | 'extensions' | 'referenceTaskIds' | 'name' | 'description']?: unknown };

/** Our part from an a2a-js part; undefined for a part with no content. */
export function fromJsPart(part: js.Part): Part | undefined {
  const content = part.content;
  let ours: Part;
  switch (content?.$case) {
    case 'text':
      // The usual part as one literal (properties added later would each cost the stored part a property array).
      if (part.metadata === undefined && !part.filename) return part.mediaType ? { text: content.value, mediaType: part.mediaType } : { text: content.value };
      ours = { text: content.value };
      break;
    case 'raw':
      ours = { raw: base64Of(content.value) };
      break;
    case 'url':
      ours = { url: content.value };
      break;
    case 'data':
      ours = { data: content.value ?? null };
      break;
    default:
      return undefined;
  }
  const optional = ours as Optional;
  if (part.metadata !== undefined) optional.metadata = part.metadata as Struct;
  if (part.filename) optional.filename = part.filename;
  if (part.mediaType) optional.mediaType = part.mediaType;
  return ours;
}

function fromJsParts(parts: readonly js.Part[] | undefined): Part[] {
  const ours: Part[] = [];
  if (parts === undefined) return ours;
  for (const part of parts) {
    const one = fromJsPart(part);
    if (one !== undefined) ours.push(one);
  }
  return ours;
}

/** An a2a-js message from one of ours. */
export function toJsMessage(message: Message): js.Message {
  return {
    messageId: message.messageId,
    contextId: message.contextId ?? '',
    taskId: message.taskId ?? '',
    role: (message.role === 'ROLE_USER' ? 1 : 2) as js.Message['role'],
    parts: message.parts.map(toJsPart),
    metadata: meta(message.metadata),
    extensions: message.extensions ? [...message.extensions] : [],
    referenceTaskIds: message.referenceTaskIds ? [...message.referenceTaskIds] : [],
  };
}

/** Our message from an a2a-js message (role defaults to the agent's). */
export function fromJsMessage(message: js.Message): Message {
  const ours: Message = {
    messageId: message.messageId || crypto.randomUUID(),
    role: (message.role as number) === 1 ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: fromJsParts(message.parts),
  };
  const optional = ours as Optional;
  if (message.contextId) optional.contextId = message.contextId;
  if (message.taskId) optional.taskId = message.taskId;
  if (message.metadata !== undefined) optional.metadata = message.metadata as Struct;
  if (message.extensions?.length) optional.extensions = [...message.extensions];
  if (message.referenceTaskIds?.length) optional.referenceTaskIds = [...message.referenceTaskIds];
  return ours;
}

/**
 * `id` as one flat string, its value unchanged. An id made by concatenation
 * (uuid's `v4()` and Node's `crypto.randomUUID()` are) is a tree of some
 * twenty strings in V8, and the stored task would keep every one of them
 * (about 400 bytes a message); normalizing it flattens it, and when that
 * would change its value the id is kept as it is.
 */
function flat(id: string): string {
  const one = id.normalize();
  return one === id ? one : id;
}

/**
 * What an executor's status message says, as an agent's `Say`: its id,
 * parts and optional fields, without its role and ids (the service makes it
 * the agent's, with the task's ids). A literal of a fixed shape when it has
 * no optional fields: the service copies it into the stored message, and a
 * copy of an object that had properties added after it was made gets a
 * hidden class of its own, kept with every stored task.
 */
export function sayOf(message: js.Message): Omit<Message, 'role'> {
  const say: Omit<Message, 'role'> = { messageId: message.messageId ? flat(message.messageId) : crypto.randomUUID(), parts: fromJsParts(message.parts) };
  const optional = say as Optional;
  if (message.metadata !== undefined) optional.metadata = message.metadata as Struct;
  if (message.extensions?.length) optional.extensions = [...message.extensions];
  if (message.referenceTaskIds?.length) optional.referenceTaskIds = [...message.referenceTaskIds];
  return say;
}

/** An a2a-js artifact from one of ours. */
export function toJsArtifact(artifact: Artifact): js.Artifact {
  return {
    artifactId: artifact.artifactId,
    name: artifact.name ?? '',
    description: artifact.description ?? '',
    parts: artifact.parts.map(toJsPart),
    metadata: meta(artifact.metadata),
    extensions: artifact.extensions ? [...artifact.extensions] : [],
  };
}

/** Our artifact from an a2a-js artifact. */
export function fromJsArtifact(artifact: js.Artifact): Artifact {
  const ours: Artifact = { artifactId: artifact.artifactId || crypto.randomUUID(), parts: fromJsParts(artifact.parts) };
  const optional = ours as Optional;
  if (artifact.name) optional.name = artifact.name;
  if (artifact.description) optional.description = artifact.description;
  if (artifact.metadata !== undefined) optional.metadata = artifact.metadata as Struct;
  if (artifact.extensions?.length) optional.extensions = [...artifact.extensions];
  return ours;
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
