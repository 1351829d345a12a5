import type {
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../schema/index.js';
import { isSettled } from '../schema/index.js';
import { artifactToV03, artifactToV1, messageToV03, messageToV1 } from './v03-messages.js';
import type {
  V03PushNotificationConfig,
  V03StreamEvent,
  V03Task,
  V03TaskArtifactUpdateEvent,
  V03TaskPushNotificationConfig,
  V03TaskState,
  V03TaskStatus,
  V03TaskStatusUpdateEvent,
} from './v03-types.js';
import { compact, isRecord, nonEmpty } from './v03-util.js';

const STATES: readonly (readonly [TaskState, V03TaskState])[] = [
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
  ['TASK_STATE_COMPLETED', 'completed'],
  ['TASK_STATE_CANCELED', 'canceled'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_REJECTED', 'rejected'],
  ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
];
const TO_V03 = new Map<string, V03TaskState>(STATES);
const TO_V1 = new Map<string, TaskState>(STATES.map(([v1, v03]) => [v03, v1]));

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`; an unknown state → `unknown`. */
export function stateToV03(state: TaskState | 'TASK_STATE_UNSPECIFIED'): V03TaskState {
  return TO_V03.get(state) ?? 'unknown';
}

/**
 * `input-required` → `TASK_STATE_INPUT_REQUIRED`. Also accepts snake case
 * (`input_required`, as Python enums print) and v1.0 names; `unknown` (or
 * anything else) → `TASK_STATE_UNSPECIFIED`, which v1.0 validation rejects.
 */
export function stateToV1(state: unknown): TaskState | 'TASK_STATE_UNSPECIFIED' {
  if (typeof state !== 'string') return 'TASK_STATE_UNSPECIFIED';
  if (TO_V03.has(state)) return state as TaskState;
  return TO_V1.get(state.toLowerCase().replace(/_/g, '-')) ?? 'TASK_STATE_UNSPECIFIED';
}

/** A v1.0 task status as a v0.3 one. */
export function statusToV03(status: TaskStatus): V03TaskStatus {
  return compact({
    state: stateToV03(status.state),
    message: status.message && messageToV03(status.message),
    timestamp: status.timestamp,
  });
}

/** A v0.3 task status as a v1.0 one. */
export function statusToV1(status: unknown): TaskStatus {
  if (!isRecord(status)) return status as TaskStatus;
  return compact({
    state: stateToV1(status.state) as TaskState,
    message: status.message === undefined || status.message === null ? undefined : messageToV1(status.message, ['status', 'message']),
    timestamp: nonEmpty(status.timestamp),
  });
}

/** A v1.0 task as a v0.3 task (`kind: "task"`). */
export function taskToV03(task: Task): V03Task {
  return compact({
    kind: 'task' as const,
    id: task.id,
    contextId: task.contextId,
    status: statusToV03(task.status),
    artifacts: task.artifacts?.map(artifactToV03),
    history: task.history?.map(messageToV03),
    metadata: task.metadata,
  });
}

/** A v0.3 task as a v1.0 task. */
export function taskToV1(task: unknown): Task {
  if (!isRecord(task)) return task as Task;
  return compact({
    id: task.id as string,
    contextId: task.contextId as string,
    status: statusToV1(task.status),
    artifacts: Array.isArray(task.artifacts) ? task.artifacts.map((a, i) => artifactToV1(a, ['artifacts', i])) : undefined,
    history: Array.isArray(task.history) ? task.history.map((m, i) => messageToV1(m, ['history', i])) : undefined,
    metadata: isRecord(task.metadata) ? task.metadata : undefined,
  });
}

/**
 * A v1.0 status update as a v0.3 one. `final` is true when the state is
 * terminal or interrupted: the stream ends after it.
 */
export function statusUpdateToV03(event: TaskStatusUpdateEvent): V03TaskStatusUpdateEvent {
  return compact({
    kind: 'status-update' as const,
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV03(event.status),
    final: isSettled(event.status.state),
    metadata: event.metadata,
  });
}

/** A v1.0 artifact update as a v0.3 one. */
export function artifactUpdateToV03(event: TaskArtifactUpdateEvent): V03TaskArtifactUpdateEvent {
  return compact({
    kind: 'artifact-update' as const,
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: artifactToV03(event.artifact),
    append: event.append,
    lastChunk: event.lastChunk,
    metadata: event.metadata,
  });
}

/**
 * One v1.0 stream response as the v0.3 event it stands for: the payload
 * itself with a `kind` (`task`, `message`, `status-update`,
 * `artifact-update`), and `final: true` on a status update whose state is
 * terminal or interrupted.
 */
export function v1StreamEventToV03(response: StreamResponse): V03StreamEvent {
  if ('task' in response) return taskToV03(response.task);
  if ('message' in response) return messageToV03(response.message);
  if ('statusUpdate' in response) return statusUpdateToV03(response.statusUpdate);
  return artifactUpdateToV03(response.artifactUpdate);
}

/**
 * One v0.3 stream event as a v1.0 stream response, by its `kind`. A value
 * that is already a v1.0 stream response passes unchanged; `final` is
 * dropped (v1.0 ends a stream by closing it).
 */
export function v03StreamEventToV1(event: unknown): StreamResponse {
  if (!isRecord(event)) return event as StreamResponse;
  switch (event.kind) {
    case 'task':
      return { task: taskToV1(event) };
    case 'message':
      return { message: messageToV1(event) };
    case 'status-update':
      return {
        statusUpdate: compact({
          taskId: event.taskId as string,
          contextId: event.contextId as string,
          status: statusToV1(event.status),
          metadata: isRecord(event.metadata) ? event.metadata : undefined,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: compact({
          taskId: event.taskId as string,
          contextId: event.contextId as string,
          artifact: artifactToV1(event.artifact),
          append: typeof event.append === 'boolean' ? event.append : undefined,
          lastChunk: typeof event.lastChunk === 'boolean' ? event.lastChunk : undefined,
          metadata: isRecord(event.metadata) ? event.metadata : undefined,
        }),
      };
    default:
      return event as StreamResponse;
  }
}

/** A v1.0 webhook config (flat) as a v0.3 one (`schemes: [scheme]`). */
export function pushConfigToV03(config: TaskPushNotificationConfig): V03PushNotificationConfig {
  const auth = config.authentication;
  return compact({
    id: nonEmpty(config.id),
    url: config.url,
    token: nonEmpty(config.token),
    authentication: auth && compact({ schemes: [auth.scheme], credentials: nonEmpty(auth.credentials) }),
  });
}

/** A v0.3 webhook config as the v1.0 fields (the first of `schemes` becomes `scheme`). */
export function pushConfigToV1(config: unknown): Omit<TaskPushNotificationConfig, 'taskId' | 'tenant'> {
  if (!isRecord(config)) return config as TaskPushNotificationConfig;
  const auth = isRecord(config.authentication) ? config.authentication : undefined;
  const schemes = Array.isArray(auth?.schemes) ? (auth.schemes as string[]) : [];
  return compact({
    id: nonEmpty(config.id),
    url: config.url as string,
    token: nonEmpty(config.token),
    authentication: auth && compact({ scheme: (schemes[0] ?? auth.scheme) as string, credentials: nonEmpty(auth.credentials) }),
  });
}

/** A v1.0 task push config as the v0.3 `{ taskId, pushNotificationConfig }`. */
export function taskPushConfigToV03(config: TaskPushNotificationConfig): V03TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: pushConfigToV03(config) };
}

/** A v0.3 `{ taskId, pushNotificationConfig }` as a flat v1.0 task push config. */
export function taskPushConfigToV1(config: unknown): TaskPushNotificationConfig {
  if (!isRecord(config)) return config as TaskPushNotificationConfig;
  const inner = isRecord(config.pushNotificationConfig) ? config.pushNotificationConfig : config;
  return compact({ taskId: nonEmpty(config.taskId), ...pushConfigToV1(inner) });
}
