import type { MethodName, ResultOf } from '../methods.js';
import type {
  AgentCard,
  ListPushConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../schema/index.js';
import { agentCardToV03, agentCardToV1 } from './v03-card.js';
import { messageToV03, messageToV1 } from './v03-messages.js';
import { taskPushConfigToV03, taskPushConfigToV1, taskToV03, taskToV1, v03StreamEventToV1, v1StreamEventToV03 } from './v03-tasks.js';
import { isRecord } from './v03-util.js';

/**
 * True when `value` is a v0.3-shaped object: it carries a string `kind`
 * discriminator (`task`, `message`, `status-update`, `artifact-update`, or a
 * part kind). v1.0 objects never have `kind`.
 */
export function isV03Shaped(value: unknown): boolean {
  return isRecord(value) && typeof value.kind === 'string';
}

/**
 * The v0.3 result of a call the service answered with a v1.0 `result`:
 * SendMessage gives the bare task or message with its `kind` (not
 * `{ task }`); GetTask and CancelTask a v0.3 task; ListTasks its page with
 * v0.3 tasks; push configs `{ taskId, pushNotificationConfig }` (a list is a
 * bare array, a delete `null`); the extended card the v0.3 card shape.
 * Stream items go through {@link v1StreamEventToV03}.
 */
export function v1ResultToV03(method: MethodName, result: unknown): unknown {
  switch (method) {
    case 'SendMessage': {
      const r = result as SendMessageResponse;
      return 'task' in r ? taskToV03(r.task) : messageToV03(r.message);
    }
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return v1StreamEventToV03(result as StreamResponse);
    case 'GetTask':
    case 'CancelTask':
      return taskToV03(result as Task);
    case 'ListTasks': {
      const r = result as ListTasksResponse;
      return { ...r, tasks: r.tasks.map(taskToV03) };
    }
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigToV03(result as TaskPushNotificationConfig);
    case 'ListTaskPushNotificationConfigs':
      return (result as ListPushConfigsResponse).configs.map(taskPushConfigToV03);
    case 'DeleteTaskPushNotificationConfig':
      return null;
    case 'GetExtendedAgentCard':
      return agentCardToV03(result as AgentCard);
  }
}

/** Reads a SendMessage result: a kind-tagged task or message, `{ task }`/`{ message }`, or a kind-less task. */
function sendResultToV1(result: unknown): SendMessageResponse {
  if (!isRecord(result)) return result as SendMessageResponse;
  if (result.kind === 'message') return { message: messageToV1(result) };
  if (result.kind === 'task') return { task: taskToV1(result) };
  if ('task' in result || 'message' in result) return result as SendMessageResponse;
  // A task without `kind` (the "task-like" shape of seed 002): an id and a status.
  if (typeof result.id === 'string' && isRecord(result.status)) return { task: taskToV1(result) };
  return result as SendMessageResponse;
}

/**
 * The v1.0 result of a call a v0.3 server answered (the reverse of
 * {@link v1ResultToV03}), for clients: kinds become v1.0 wrappers, a bare
 * push-config array becomes `{ configs }`, a delete's `null` becomes `{}`,
 * a v0.3 card gets `supportedInterfaces`. Results already in the v1.0 shape
 * pass unchanged. Shapes are converted, not validated.
 */
export function v03ResultToV1<M extends MethodName>(method: M, result: unknown): ResultOf<M> {
  return convertResult(method, result) as ResultOf<M>;
}

function convertResult(method: MethodName, result: unknown): unknown {
  switch (method) {
    case 'SendMessage':
      return sendResultToV1(result);
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return v03StreamEventToV1(result);
    case 'GetTask':
    case 'CancelTask':
      return taskToV1(result);
    case 'ListTasks':
      return isRecord(result) && Array.isArray(result.tasks) ? { ...result, tasks: result.tasks.map(taskToV1) } : result;
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return taskPushConfigToV1(result);
    case 'ListTaskPushNotificationConfigs':
      return Array.isArray(result) ? { configs: result.map(taskPushConfigToV1) } : result;
    case 'DeleteTaskPushNotificationConfig':
      return result ?? {};
    case 'GetExtendedAgentCard':
      return agentCardToV1(result);
  }
}
