import type * as z from 'zod';
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  CreatePushConfigRequestSchema,
  EmptySchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskRequestSchema,
  ListPushConfigsRequestSchema,
  ListPushConfigsResponseSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  PushConfigRefSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from './schema/index.js';

/** The HTTP+JSON binding's route of a method: verb and path template (`{id}`, `{taskId}`). */
export interface RestRoute {
  readonly verb: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  /** Where the rest of the params come from: the JSON body or the query string. */
  readonly paramsIn: 'body' | 'query';
}

/** One A2A operation: its params and result schemas, whether it streams, and its other names. */
export interface MethodSpec {
  readonly kind: 'unary' | 'stream';
  readonly params: z.ZodType;
  readonly result: z.ZodType;
  /** The v0.3 JSON-RPC method name, when v0.3 had the operation. */
  readonly v03?: string;
  readonly rest: RestRoute;
}

const post = (path: string): RestRoute => ({ verb: 'POST', path, paramsIn: 'body' });
const get = (path: string): RestRoute => ({ verb: 'GET', path, paramsIn: 'query' });

/**
 * Every A2A v1.0 operation, declared once. The service interface, the server
 * adapters and the client API are all derived from this table, so names and
 * shapes cannot drift between them.
 */
export const METHODS = {
  SendMessage: {
    kind: 'unary',
    params: SendMessageRequestSchema,
    result: SendMessageResponseSchema,
    v03: 'message/send',
    rest: post('/message:send'),
  },
  SendStreamingMessage: {
    kind: 'stream',
    params: SendMessageRequestSchema,
    result: StreamResponseSchema,
    v03: 'message/stream',
    rest: post('/message:stream'),
  },
  GetTask: { kind: 'unary', params: GetTaskRequestSchema, result: TaskSchema, v03: 'tasks/get', rest: get('/tasks/{id}') },
  ListTasks: { kind: 'unary', params: ListTasksRequestSchema, result: ListTasksResponseSchema, v03: 'tasks/list', rest: get('/tasks') },
  CancelTask: {
    kind: 'unary',
    params: CancelTaskRequestSchema,
    result: TaskSchema,
    v03: 'tasks/cancel',
    rest: post('/tasks/{id}:cancel'),
  },
  SubscribeToTask: {
    kind: 'stream',
    params: SubscribeToTaskRequestSchema,
    result: StreamResponseSchema,
    v03: 'tasks/resubscribe',
    rest: get('/tasks/{id}:subscribe'),
  },
  CreateTaskPushNotificationConfig: {
    kind: 'unary',
    params: CreatePushConfigRequestSchema,
    result: TaskPushNotificationConfigSchema,
    v03: 'tasks/pushNotificationConfig/set',
    rest: post('/tasks/{taskId}/pushNotificationConfigs'),
  },
  GetTaskPushNotificationConfig: {
    kind: 'unary',
    params: PushConfigRefSchema,
    result: TaskPushNotificationConfigSchema,
    v03: 'tasks/pushNotificationConfig/get',
    rest: get('/tasks/{taskId}/pushNotificationConfigs/{id}'),
  },
  ListTaskPushNotificationConfigs: {
    kind: 'unary',
    params: ListPushConfigsRequestSchema,
    result: ListPushConfigsResponseSchema,
    v03: 'tasks/pushNotificationConfig/list',
    rest: get('/tasks/{taskId}/pushNotificationConfigs'),
  },
  DeleteTaskPushNotificationConfig: {
    kind: 'unary',
    params: PushConfigRefSchema,
    result: EmptySchema,
    v03: 'tasks/pushNotificationConfig/delete',
    rest: { verb: 'DELETE', path: '/tasks/{taskId}/pushNotificationConfigs/{id}', paramsIn: 'query' },
  },
  GetExtendedAgentCard: {
    kind: 'unary',
    params: GetExtendedAgentCardRequestSchema,
    result: AgentCardSchema,
    v03: 'agent/getAuthenticatedExtendedCard',
    rest: get('/extendedAgentCard'),
  },
} as const satisfies Record<string, MethodSpec>;

/** The table's type. */
export type Methods = typeof METHODS;
/** The v1.0 name of an operation (`SendMessage`, `GetTask`, ...). */
export type MethodName = keyof Methods;
/** Operations that answer once. */
export type UnaryMethodName = { [M in MethodName]: Methods[M]['kind'] extends 'unary' ? M : never }[MethodName];
/** Operations that answer with a stream. */
export type StreamMethodName = { [M in MethodName]: Methods[M]['kind'] extends 'stream' ? M : never }[MethodName];
/** What a caller passes to an operation (the schema's input). */
export type ParamsOf<M extends MethodName> = z.input<Methods[M]['params']>;
/** An operation's params after validation (the schema's output). */
export type ParsedParamsOf<M extends MethodName> = z.output<Methods[M]['params']>;
/** An operation's result; for a stream, the type of each item. */
export type ResultOf<M extends MethodName> = z.output<Methods[M]['result']>;

/** Every operation name, in table order. */
export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

/** Looks an operation up by its v1.0 name or its v0.3 JSON-RPC name. */
export function findMethod(name: string): { name: MethodName; version: '1.0' | '0.3' } | undefined {
  if (Object.hasOwn(METHODS, name)) return { name: name as MethodName, version: '1.0' };
  const v03 = METHOD_NAMES.find((m) => (METHODS[m] as MethodSpec).v03 === name);
  return v03 ? { name: v03, version: '0.3' } : undefined;
}
