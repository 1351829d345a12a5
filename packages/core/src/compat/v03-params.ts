import type { MethodName, ParamsOf } from '../methods.js';
import type { Message, SendMessageRequest, TaskPushNotificationConfig } from '../schema/index.js';
import { messageToV03, messageToV1 } from './v03-messages.js';
import { pushConfigToV03, pushConfigToV1, stateToV03, stateToV1, taskPushConfigToV03, taskPushConfigToV1 } from './v03-tasks.js';
import type { V03MessageSendParams } from './v03-types.js';
import { compact, isRecord } from './v03-util.js';

/** v0.3 `historyLength: 0` means "no limit" (a2a-v0.3.proto); v1.0 `0` means "no history". */
function historyToV1(value: unknown): unknown {
  return value === 0 ? undefined : value;
}

/** v1.0 `0` ("no history") has no v0.3 spelling: it is left out, and the caller trims the result. */
function historyToV03(value: number | undefined): number | undefined {
  return value === 0 ? undefined : value;
}

/** The task id of v0.3 `TaskIdParams`-like params: `id`, or `taskId` as evo-ai style clients send. */
function taskIdOf(params: Record<string, unknown>): unknown {
  return params.id ?? params.taskId;
}

function sendParamsToV1(params: Record<string, unknown>): unknown {
  let message = params.message;
  // The v0.3 spec's own multi-turn example puts messageId next to the message.
  if (isRecord(message) && message.messageId === undefined && typeof params.messageId === 'string') {
    message = { ...message, messageId: params.messageId };
  }
  const config = isRecord(params.configuration) ? params.configuration : undefined;
  const configuration =
    config &&
    compact({
      acceptedOutputModes: config.acceptedOutputModes,
      historyLength: historyToV1(config.historyLength),
      returnImmediately: config.blocking === false ? true : config.returnImmediately,
      taskPushNotificationConfig: isRecord(config.pushNotificationConfig) ? pushConfigToV1(config.pushNotificationConfig) : undefined,
    });
  return compact({
    message: messageToV1(message),
    configuration: configuration && Object.keys(configuration).length > 0 ? configuration : undefined,
    metadata: params.metadata,
  });
}

function pushRefToV1(params: Record<string, unknown>): unknown {
  // `{ taskId, id }` without pushNotificationConfigId is already the v1.0 shape.
  if (params.taskId !== undefined && params.id !== undefined && params.pushNotificationConfigId === undefined) {
    return { taskId: params.taskId, id: params.id };
  }
  const taskId = taskIdOf(params);
  // v0.3 lets `get` omit the config id; a2a-python then uses the task id as the config id.
  return compact({ taskId, id: params.pushNotificationConfigId ?? taskId });
}

/**
 * The v1.0 params of a call made with v0.3 params (`message/send`,
 * `tasks/get`, ...), ready for the service, which validates them:
 * - messages, parts and roles take their v1.0 shapes (see `messageToV1`);
 * - `configuration.blocking: false` becomes `returnImmediately: true`
 *   (v0.3 blocks by default, like v1.0), `pushNotificationConfig` becomes
 *   `taskPushNotificationConfig`, `historyLength: 0` (v0.3: no limit) is dropped;
 * - `TaskQueryParams`/`TaskIdParams` may name the task `id` or `taskId`;
 *   push-config params map `{ id, pushNotificationConfigId }` to `{ taskId, id }`;
 * - `tasks/resubscribe` keeps Taskwire's `afterSequence`; `tasks/list` (an
 *   extension: v0.3 JSON-RPC has no list) takes v1.0 params with either
 *   spelling of `status`.
 * Params that are not an object pass unchanged (validation reports them).
 */
export function v03ParamsToV1(method: MethodName, params: unknown): unknown {
  if (method === 'GetExtendedAgentCard') return {};
  if (!isRecord(params)) return params;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParamsToV1(params);
    case 'GetTask':
      return compact({ id: taskIdOf(params), historyLength: historyToV1(params.historyLength) });
    case 'CancelTask':
      return compact({ id: taskIdOf(params), metadata: params.metadata });
    case 'SubscribeToTask':
      return compact({ id: taskIdOf(params), afterSequence: params.afterSequence });
    case 'ListTasks': {
      if (params.status === undefined || params.status === null) return params;
      const status = stateToV1(params.status);
      return { ...params, status: status === 'TASK_STATE_UNSPECIFIED' ? params.status : status };
    }
    case 'CreateTaskPushNotificationConfig':
      return taskPushConfigToV1(params);
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return pushRefToV1(params);
    case 'ListTaskPushNotificationConfigs':
      return compact({ taskId: taskIdOf(params) });
  }
}

function sendParamsToV03(method: MethodName, params: SendMessageRequest): V03MessageSendParams {
  const config = params.configuration;
  const push = config?.taskPushNotificationConfig;
  // Blocking is sent explicitly: some v0.3 servers treat a configuration without `blocking` as non-blocking.
  const blocking = method === 'SendMessage' || config?.returnImmediately !== undefined ? !config?.returnImmediately : undefined;
  const configuration = compact({
    acceptedOutputModes: config?.acceptedOutputModes,
    historyLength: historyToV03(config?.historyLength),
    blocking,
    pushNotificationConfig: push && pushConfigToV03(push),
  });
  return compact({
    message: messageToV03(params.message as Message),
    configuration: Object.keys(configuration).length > 0 ? configuration : undefined,
    metadata: params.metadata,
  });
}

/**
 * The v0.3 params of a v1.0 call, for a client talking to a v0.3 server
 * (the reverse of {@link v03ParamsToV1}). `tenant` has no v0.3 field and is
 * dropped; `historyLength: 0` is left out (v0.3 reads 0 as "no limit"), so
 * a caller wanting no history trims the result; `GetExtendedAgentCard` has
 * no params (`undefined`).
 */
export function v1ParamsToV03<M extends MethodName>(method: M, params: ParamsOf<M>): unknown {
  const p = params as Record<string, unknown>;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return sendParamsToV03(method, params as SendMessageRequest);
    case 'GetTask':
      return compact({ id: p.id, historyLength: historyToV03(p.historyLength as number | undefined) });
    case 'CancelTask':
      return compact({ id: p.id, metadata: p.metadata });
    case 'SubscribeToTask':
      return compact({ id: p.id, afterSequence: p.afterSequence });
    case 'ListTasks': {
      const { tenant: _tenant, ...rest } = p;
      const status = rest.status as Parameters<typeof stateToV03>[0] | undefined;
      return compact({ ...rest, status: status && status !== 'TASK_STATE_UNSPECIFIED' ? stateToV03(status) : undefined });
    }
    case 'CreateTaskPushNotificationConfig':
      return taskPushConfigToV03(params as TaskPushNotificationConfig);
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { id: p.taskId, pushNotificationConfigId: p.id };
    case 'ListTaskPushNotificationConfigs':
      return { id: p.taskId };
    default:
      return undefined;
  }
}
