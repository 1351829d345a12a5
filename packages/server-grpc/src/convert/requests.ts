import type * as core from '@taskwire/core';
import type * as pb from '../gen/lf/a2a/v1/a2a.js';
import { fromMessage, fromTask, toMessage, toTask } from './messages.js';
import { fromTaskState, fromTimestamp, optionalList, optionalString, optionalTrue, put, toTaskState, toTimestamp } from './scalars.js';

// The request and response messages of the rpcs (besides the task model of
// messages.ts and the card of agent-card.ts). Core types here are the
// method table's: params as a caller passes them, results as the service
// returns them.

type Params<M extends core.MethodName> = core.ParamsOf<M>;

/** A proto TaskPushNotificationConfig from a core config. */
export function toPushConfig(config: core.TaskPushNotificationConfig): pb.TaskPushNotificationConfig {
  return {
    tenant: config.tenant ?? '',
    id: config.id ?? '',
    taskId: config.taskId ?? '',
    url: config.url,
    token: config.token ?? '',
    authentication: config.authentication && { scheme: config.authentication.scheme, credentials: config.authentication.credentials ?? '' },
  };
}

/** A core TaskPushNotificationConfig from a proto one. */
export function fromPushConfig(config: pb.TaskPushNotificationConfig): core.TaskPushNotificationConfig {
  const out: core.TaskPushNotificationConfig = { url: config.url };
  put(out, 'tenant', optionalString(config.tenant));
  put(out, 'id', optionalString(config.id));
  put(out, 'taskId', optionalString(config.taskId));
  put(out, 'token', optionalString(config.token));
  if (config.authentication) {
    out.authentication = { scheme: config.authentication.scheme };
    put(out.authentication, 'credentials', optionalString(config.authentication.credentials));
  }
  return out;
}

/** A proto SendMessageRequest from SendMessage / SendStreamingMessage params. */
export function toSendMessageRequest(params: Params<'SendMessage'>): pb.SendMessageRequest {
  const config = params.configuration;
  return {
    tenant: params.tenant ?? '',
    message: params.message && toMessage(params.message as core.Message),
    configuration: config && {
      acceptedOutputModes: config.acceptedOutputModes ?? [],
      taskPushNotificationConfig: config.taskPushNotificationConfig && toPushConfig(config.taskPushNotificationConfig),
      historyLength: config.historyLength,
      returnImmediately: config.returnImmediately ?? false,
      ifGenerationMatch: config.ifGenerationMatch === undefined ? undefined : Number(config.ifGenerationMatch),
    },
    metadata: params.metadata,
  };
}

/** SendMessage params from a proto SendMessageRequest. */
export function fromSendMessageRequest(request: pb.SendMessageRequest): Params<'SendMessage'> {
  const out = {} as Params<'SendMessage'>;
  put(out, 'tenant', optionalString(request.tenant));
  if (request.message) out.message = fromMessage(request.message);
  const config = request.configuration;
  if (config) {
    const configuration: NonNullable<Params<'SendMessage'>['configuration']> = {};
    put(configuration, 'acceptedOutputModes', optionalList(config.acceptedOutputModes));
    if (config.taskPushNotificationConfig) configuration.taskPushNotificationConfig = fromPushConfig(config.taskPushNotificationConfig);
    put(configuration, 'historyLength', config.historyLength);
    put(configuration, 'returnImmediately', optionalTrue(config.returnImmediately));
    put(configuration, 'ifGenerationMatch', config.ifGenerationMatch);
    out.configuration = configuration;
  }
  put(out, 'metadata', request.metadata);
  return out;
}

/** A proto GetTaskRequest from GetTask params. */
export function toGetTaskRequest(params: Params<'GetTask'>): pb.GetTaskRequest {
  const current = params.currentGeneration;
  return { tenant: params.tenant ?? '', id: params.id, historyLength: params.historyLength, currentGeneration: current === undefined ? undefined : Number(current) };
}

/** GetTask params from a proto GetTaskRequest. */
export function fromGetTaskRequest(request: pb.GetTaskRequest): Params<'GetTask'> {
  const out: Params<'GetTask'> = { id: request.id };
  put(out, 'tenant', optionalString(request.tenant));
  put(out, 'historyLength', request.historyLength);
  put(out, 'currentGeneration', request.currentGeneration);
  return out;
}

/** A proto ListTasksRequest from ListTasks params. */
export function toListTasksRequest(params: Params<'ListTasks'>): pb.ListTasksRequest {
  return {
    tenant: params.tenant ?? '',
    contextId: params.contextId ?? '',
    status: params.status === undefined ? 0 : toTaskState(params.status),
    pageSize: params.pageSize,
    pageToken: params.pageToken ?? '',
    historyLength: params.historyLength,
    statusTimestampAfter:
      params.statusTimestampAfter === undefined ? undefined : toTimestamp(params.statusTimestampAfter, 'statusTimestampAfter'),
    includeArtifacts: params.includeArtifacts,
  };
}

/** ListTasks params from a proto ListTasksRequest (status UNSPECIFIED is no filter). */
export function fromListTasksRequest(request: pb.ListTasksRequest): Params<'ListTasks'> {
  const out: Params<'ListTasks'> = {};
  put(out, 'tenant', optionalString(request.tenant));
  put(out, 'contextId', optionalString(request.contextId));
  if (request.status !== 0) out.status = fromTaskState(request.status);
  put(out, 'pageSize', request.pageSize);
  put(out, 'pageToken', optionalString(request.pageToken));
  put(out, 'historyLength', request.historyLength);
  if (request.statusTimestampAfter) out.statusTimestampAfter = fromTimestamp(request.statusTimestampAfter);
  put(out, 'includeArtifacts', request.includeArtifacts);
  return out;
}

/** A proto ListTasksResponse from a ListTasks result. */
export function toListTasksResponse(result: core.ListTasksResponse): pb.ListTasksResponse {
  return { tasks: result.tasks.map(toTask), nextPageToken: result.nextPageToken, pageSize: result.pageSize, totalSize: result.totalSize };
}

/** A ListTasks result from a proto ListTasksResponse. */
export function fromListTasksResponse(response: pb.ListTasksResponse): core.ListTasksResponse {
  return {
    tasks: response.tasks.map(fromTask),
    nextPageToken: response.nextPageToken,
    pageSize: response.pageSize,
    totalSize: response.totalSize,
  };
}

/** A proto CancelTaskRequest from CancelTask params. */
export function toCancelTaskRequest(params: Params<'CancelTask'>): pb.CancelTaskRequest {
  return { tenant: params.tenant ?? '', id: params.id, metadata: params.metadata };
}

/** CancelTask params from a proto CancelTaskRequest. */
export function fromCancelTaskRequest(request: pb.CancelTaskRequest): Params<'CancelTask'> {
  const out: Params<'CancelTask'> = { id: request.id };
  put(out, 'tenant', optionalString(request.tenant));
  put(out, 'metadata', request.metadata);
  return out;
}

/** A proto SubscribeToTaskRequest from SubscribeToTask params (`afterSequence` travels in metadata). */
export function toSubscribeRequest(params: Params<'SubscribeToTask'>): pb.SubscribeToTaskRequest {
  return { tenant: params.tenant ?? '', id: params.id };
}

/** SubscribeToTask params from a proto SubscribeToTaskRequest. */
export function fromSubscribeRequest(request: pb.SubscribeToTaskRequest): Params<'SubscribeToTask'> {
  const out: Params<'SubscribeToTask'> = { id: request.id };
  put(out, 'tenant', optionalString(request.tenant));
  return out;
}

/** A proto Get/DeleteTaskPushNotificationConfigRequest from a core config reference. */
export function toPushConfigRef(params: core.PushConfigRef): pb.GetTaskPushNotificationConfigRequest {
  return { tenant: params.tenant ?? '', taskId: params.taskId, id: params.id };
}

/** A core config reference from a proto Get/DeleteTaskPushNotificationConfigRequest. */
export function fromPushConfigRef(request: pb.GetTaskPushNotificationConfigRequest): core.PushConfigRef {
  const out: core.PushConfigRef = { taskId: request.taskId, id: request.id };
  put(out, 'tenant', optionalString(request.tenant));
  return out;
}

/** A proto ListTaskPushNotificationConfigsRequest from core params (page size 0 is unset). */
export function toListPushConfigsRequest(params: core.ListPushConfigsRequest): pb.ListTaskPushNotificationConfigsRequest {
  return { tenant: params.tenant ?? '', taskId: params.taskId, pageSize: params.pageSize ?? 0, pageToken: params.pageToken ?? '' };
}

/** Core params from a proto ListTaskPushNotificationConfigsRequest. */
export function fromListPushConfigsRequest(request: pb.ListTaskPushNotificationConfigsRequest): core.ListPushConfigsRequest {
  const out: core.ListPushConfigsRequest = { taskId: request.taskId };
  put(out, 'tenant', optionalString(request.tenant));
  if (request.pageSize !== 0) out.pageSize = request.pageSize;
  put(out, 'pageToken', optionalString(request.pageToken));
  return out;
}

/** A proto ListTaskPushNotificationConfigsResponse from a core result. */
export function toListPushConfigsResponse(result: core.ListPushConfigsResponse): pb.ListTaskPushNotificationConfigsResponse {
  return { configs: result.configs.map(toPushConfig), nextPageToken: result.nextPageToken ?? '' };
}

/** A core result from a proto ListTaskPushNotificationConfigsResponse. */
export function fromListPushConfigsResponse(response: pb.ListTaskPushNotificationConfigsResponse): core.ListPushConfigsResponse {
  const out: core.ListPushConfigsResponse = { configs: response.configs.map(fromPushConfig) };
  put(out, 'nextPageToken', optionalString(response.nextPageToken));
  return out;
}

/** A proto GetExtendedAgentCardRequest from core params. */
export function toExtendedCardRequest(params: Params<'GetExtendedAgentCard'>): pb.GetExtendedAgentCardRequest {
  return { tenant: params.tenant ?? '' };
}

/** Core params from a proto GetExtendedAgentCardRequest. */
export function fromExtendedCardRequest(request: pb.GetExtendedAgentCardRequest): Params<'GetExtendedAgentCard'> {
  const out: Params<'GetExtendedAgentCard'> = {};
  put(out, 'tenant', optionalString(request.tenant));
  return out;
}
