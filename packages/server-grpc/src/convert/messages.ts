import type * as core from '@taskwire/core';
import type * as pb from '../gen/lf/a2a/v1/a2a.js';
import {
  fromRole,
  fromTaskState,
  fromTimestamp,
  optionalList,
  optionalString,
  optionalTrue,
  put,
  toRole,
  toTaskState,
  toTimestamp,
} from './scalars.js';

// The task model: parts, messages, artifacts, tasks and stream events.
// `to*` functions build proto messages from core objects; `from*` functions
// build core objects (v1.0 ProtoJSON shape) from proto messages without
// validating them: the service validates what a client sent, with the field
// path in the error.

/** A proto Part from a core part (exactly one of text, raw, url, data). */
export function toPart(part: core.Part): pb.Part {
  const p = part as Partial<Record<'text' | 'raw' | 'url' | 'data', unknown>>;
  let content: pb.Part['content'];
  if (typeof p.text === 'string') content = { $case: 'text', text: p.text };
  else if (typeof p.raw === 'string') content = { $case: 'raw', raw: Buffer.from(p.raw, 'base64') };
  else if (typeof p.url === 'string') content = { $case: 'url', url: p.url };
  else if ('data' in p) content = { $case: 'data', data: p.data };
  return { content, metadata: part.metadata, filename: part.filename ?? '', mediaType: part.mediaType ?? '' };
}

/** A core part from a proto Part; a part without content comes out empty (validation rejects it). */
export function fromPart(part: pb.Part): core.Part {
  const out: Record<string, unknown> = {};
  const content = part.content;
  if (content?.$case === 'text') out.text = content.text;
  else if (content?.$case === 'raw') out.raw = content.raw.toString('base64');
  else if (content?.$case === 'url') out.url = content.url;
  else if (content?.$case === 'data') out.data = content.data;
  put(out, 'metadata', part.metadata);
  put(out, 'filename', optionalString(part.filename));
  put(out, 'mediaType', optionalString(part.mediaType));
  return out as core.Part;
}

/** A proto Message from a core message. */
export function toMessage(message: core.Message): pb.Message {
  return {
    messageId: message.messageId ?? '',
    contextId: message.contextId ?? '',
    taskId: message.taskId ?? '',
    role: toRole(message.role),
    parts: (message.parts ?? []).map(toPart),
    metadata: message.metadata,
    extensions: message.extensions ?? [],
    referenceTaskIds: message.referenceTaskIds ?? [],
  };
}

/** A core message from a proto Message. */
export function fromMessage(message: pb.Message): core.Message {
  const out: core.Message = { messageId: message.messageId, role: fromRole(message.role), parts: message.parts.map(fromPart) };
  put(out, 'contextId', optionalString(message.contextId));
  put(out, 'taskId', optionalString(message.taskId));
  put(out, 'metadata', message.metadata);
  put(out, 'extensions', optionalList(message.extensions));
  put(out, 'referenceTaskIds', optionalList(message.referenceTaskIds));
  return out;
}

/** A proto Artifact from a core artifact. */
export function toArtifact(artifact: core.Artifact): pb.Artifact {
  return {
    artifactId: artifact.artifactId ?? '',
    name: artifact.name ?? '',
    description: artifact.description ?? '',
    parts: (artifact.parts ?? []).map(toPart),
    metadata: artifact.metadata,
    extensions: artifact.extensions ?? [],
  };
}

/** A core artifact from a proto Artifact. */
export function fromArtifact(artifact: pb.Artifact): core.Artifact {
  const out: core.Artifact = { artifactId: artifact.artifactId, parts: artifact.parts.map(fromPart) };
  put(out, 'name', optionalString(artifact.name));
  put(out, 'description', optionalString(artifact.description));
  put(out, 'metadata', artifact.metadata);
  put(out, 'extensions', optionalList(artifact.extensions));
  return out;
}

/** A proto TaskStatus from a core status. */
export function toTaskStatus(status: core.TaskStatus): pb.TaskStatus {
  return {
    state: toTaskState(status.state),
    message: status.message && toMessage(status.message),
    timestamp: status.timestamp === undefined ? undefined : toTimestamp(status.timestamp, 'status.timestamp'),
  };
}

/** A core status from a proto TaskStatus (a missing status reads as UNSPECIFIED). */
export function fromTaskStatus(status: pb.TaskStatus | undefined): core.TaskStatus {
  const out: core.TaskStatus = { state: fromTaskState(status?.state ?? 0) };
  if (status?.message) out.message = fromMessage(status.message);
  if (status?.timestamp) out.timestamp = fromTimestamp(status.timestamp);
  return out;
}

/** A proto Task from a core task. */
export function toTask(task: core.Task): pb.Task {
  return {
    id: task.id,
    contextId: task.contextId,
    status: toTaskStatus(task.status),
    artifacts: (task.artifacts ?? []).map(toArtifact),
    history: (task.history ?? []).map(toMessage),
    metadata: task.metadata,
    generation: task.generation ?? 0,
  };
}

/** A core task from a proto Task; empty artifacts and history are left out. */
export function fromTask(task: pb.Task): core.Task {
  const out: core.Task = { id: task.id, contextId: task.contextId, status: fromTaskStatus(task.status) };
  if (task.artifacts.length > 0) out.artifacts = task.artifacts.map(fromArtifact);
  if (task.history.length > 0) out.history = task.history.map(fromMessage);
  put(out, 'metadata', task.metadata);
  put(out, 'generation', optionalGeneration(task.generation));
  return out;
}

/** A proto TaskStatusUpdateEvent from a core one. */
export function toStatusUpdate(event: core.TaskStatusUpdateEvent): pb.TaskStatusUpdateEvent {
  return { taskId: event.taskId, contextId: event.contextId, status: toTaskStatus(event.status), metadata: event.metadata, generation: event.generation ?? 0 };
}

/** A core TaskStatusUpdateEvent from a proto one. */
export function fromStatusUpdate(event: pb.TaskStatusUpdateEvent): core.TaskStatusUpdateEvent {
  const out: core.TaskStatusUpdateEvent = { taskId: event.taskId, contextId: event.contextId, status: fromTaskStatus(event.status) };
  put(out, 'metadata', event.metadata);
  put(out, 'generation', optionalGeneration(event.generation));
  return out;
}

/** A proto TaskArtifactUpdateEvent from a core one. */
export function toArtifactUpdate(event: core.TaskArtifactUpdateEvent): pb.TaskArtifactUpdateEvent {
  return {
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: toArtifact(event.artifact),
    append: event.append ?? false,
    lastChunk: event.lastChunk ?? false,
    metadata: event.metadata,
    generation: event.generation ?? 0,
  };
}

/** A core TaskArtifactUpdateEvent from a proto one; false flags are left out. */
export function fromArtifactUpdate(event: pb.TaskArtifactUpdateEvent): core.TaskArtifactUpdateEvent {
  const out = { taskId: event.taskId, contextId: event.contextId } as core.TaskArtifactUpdateEvent;
  if (event.artifact) out.artifact = fromArtifact(event.artifact);
  put(out, 'append', optionalTrue(event.append));
  put(out, 'lastChunk', optionalTrue(event.lastChunk));
  put(out, 'metadata', event.metadata);
  put(out, 'generation', optionalGeneration(event.generation));
  return out;
}

/** A proto StreamResponse from a core one (the oneof follows the core object's one key). */
export function toStreamResponse(response: core.StreamResponse): pb.StreamResponse {
  if ('task' in response) return { payload: { $case: 'task', task: toTask(response.task) } };
  if ('message' in response) return { payload: { $case: 'message', message: toMessage(response.message) } };
  if ('statusUpdate' in response) return { payload: { $case: 'statusUpdate', statusUpdate: toStatusUpdate(response.statusUpdate) } };
  return { payload: { $case: 'artifactUpdate', artifactUpdate: toArtifactUpdate(response.artifactUpdate) } };
}

/** A core StreamResponse from a proto one; an empty payload gives `{}`. */
export function fromStreamResponse(response: pb.StreamResponse): core.StreamResponse {
  const payload = response.payload;
  switch (payload?.$case) {
    case 'task':
      return { task: fromTask(payload.task) };
    case 'message':
      return { message: fromMessage(payload.message) };
    case 'statusUpdate':
      return { statusUpdate: fromStatusUpdate(payload.statusUpdate) };
    case 'artifactUpdate':
      return { artifactUpdate: fromArtifactUpdate(payload.artifactUpdate) };
    default:
      return {} as core.StreamResponse;
  }
}

/** A proto SendMessageResponse from a core one. */
export function toSendMessageResponse(response: core.SendMessageResponse): pb.SendMessageResponse {
  if ('task' in response) return { payload: { $case: 'task', task: toTask(response.task) } };
  return { payload: { $case: 'message', message: toMessage(response.message) } };
}

/** A core SendMessageResponse from a proto one. */
export function fromSendMessageResponse(response: pb.SendMessageResponse): core.SendMessageResponse {
  const payload = response.payload;
  if (payload?.$case === 'task') return { task: fromTask(payload.task) };
  if (payload?.$case === 'message') return { message: fromMessage(payload.message) };
  return {} as core.SendMessageResponse;
}

/** An A2A 1.1 generation from the wire: 0 (proto3's unset) is left out. */
function optionalGeneration(generation: number): number | undefined {
  return generation > 0 ? generation : undefined;
}
