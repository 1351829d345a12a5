import type { Attributes } from './otel-types.js';

/**
 * The span and metric attribute names Taskwire sets: the OpenTelemetry RPC
 * and GenAI conventions, and the `gen_ai.agent.a2a.*` names of the A2A Java
 * SDK's OpenTelemetry module.
 */
export const ATTR = {
  rpcSystem: 'rpc.system',
  rpcService: 'rpc.service',
  rpcMethod: 'rpc.method',
  grpcStatusCode: 'rpc.grpc.status_code',
  jsonRpcVersion: 'rpc.jsonrpc.version',
  jsonRpcErrorCode: 'rpc.jsonrpc.error_code',
  jsonRpcErrorMessage: 'rpc.jsonrpc.error_message',
  httpStatusCode: 'http.response.status_code',
  errorType: 'error.type',
  serverAddress: 'server.address',
  operationName: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  taskId: 'gen_ai.agent.a2a.task_id',
  contextId: 'gen_ai.agent.a2a.context_id',
  messageId: 'gen_ai.agent.a2a.message_id',
  configId: 'gen_ai.agent.a2a.config_id',
  a2aOperation: 'gen_ai.agent.a2a.operation.name',
  taskState: 'gen_ai.agent.a2a.status',
  protocol: 'gen_ai.agent.a2a.protocol',
  extensions: 'gen_ai.agent.a2a.extensions',
  streamEvents: 'taskwire.stream.events',
  streamEnd: 'taskwire.stream.end',
  runContinuation: 'taskwire.run.continuation',
  runEvents: 'taskwire.run.events',
  linkKind: 'taskwire.link',
  storeOutcome: 'taskwire.store.outcome',
  pushOutcome: 'taskwire.push.outcome',
} as const;

/** The gRPC service every A2A operation belongs to (`rpc.service`). */
export const A2A_RPC_SERVICE = 'lf.a2a.v1.A2AService';

/** `gen_ai.operation.name` of agent invocations (client calls and agent runs). */
export const INVOKE_AGENT = 'invoke_agent';

/** What a link from a span to another trace stands for (the `taskwire.link` attribute of the link). */
export const LINK_KIND = {
  /** The request that created the task (its trace context is stored with the task). */
  taskOrigin: 'task_origin',
  /** The request that started or continued this agent run. */
  startedBy: 'started_by',
  /** The request that canceled the task. */
  canceledBy: 'canceled_by',
} as const;

type Loose = Record<string, unknown> | undefined;

const objectOf = (value: unknown): Loose => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined);
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Sets the ids of a task (and its conversation) on `into`. */
function putIds(into: Attributes, taskId: unknown, contextId: unknown, messageId?: unknown): void {
  const task = stringOf(taskId);
  const context = stringOf(contextId);
  const message = stringOf(messageId);
  if (task) into[ATTR.taskId] = task;
  if (context) {
    into[ATTR.contextId] = context;
    into[ATTR.conversationId] = context;
  }
  if (message) into[ATTR.messageId] = message;
}

/**
 * The A2A ids a call's params name (read defensively: params are not
 * validated yet): a message's task, context and message ids; the `id` of
 * GetTask, CancelTask and SubscribeToTask; the task and config ids of the
 * push-config methods (v1.0 and v0.3 shapes).
 */
export function paramsAttributes(params: unknown, into: Attributes = {}): Attributes {
  const p = objectOf(params);
  if (!p) return into;
  const message = objectOf(p.message);
  if (message) {
    putIds(into, message.taskId ?? message.task_id, message.contextId ?? message.context_id, message.messageId ?? message.message_id);
    return into;
  }
  const taskId = p.taskId ?? p.task_id;
  if (taskId !== undefined) {
    putIds(into, taskId, undefined);
    const configId = stringOf(p.id) ?? stringOf(p.pushNotificationConfigId) ?? stringOf(objectOf(p.pushNotificationConfig)?.id);
    if (configId) into[ATTR.configId] = configId;
    return into;
  }
  putIds(into, p.id, undefined);
  return into;
}

/** The ids and state of what a call answered: a task, `{task}`, `{message}`, a stream response, or a push config. */
export function resultAttributes(result: unknown, into: Attributes = {}): Attributes {
  const r = objectOf(result);
  if (!r) return into;
  const task = objectOf(r.task) ?? (typeof r.id === 'string' && objectOf(r.status) ? r : undefined);
  if (task) {
    putIds(into, task.id, task.contextId);
    const state = stringOf(objectOf(task.status)?.state);
    if (state) into[ATTR.taskState] = state;
    return into;
  }
  const update = objectOf(r.statusUpdate) ?? objectOf(r.artifactUpdate);
  if (update) {
    putIds(into, update.taskId, update.contextId);
    const state = stringOf(objectOf(update.status)?.state);
    if (state) into[ATTR.taskState] = state;
    return into;
  }
  const message = objectOf(r.message);
  if (message) putIds(into, message.taskId, message.contextId);
  return into;
}
