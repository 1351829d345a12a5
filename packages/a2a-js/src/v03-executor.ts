import type { AgentExecutionEvent, ServerCallContext } from '@a2a-js/sdk/server';
import type { AgentContext, V03Message, V03StreamEvent, V03Task } from '@taskwire/core';
import { messageToV03, stateToV03, taskToV03, v03StreamEventToV1 } from '@taskwire/core';
import { toJsArtifact, toJsMessage, toJsStatus, toJsTask } from './shapes.js';

/*
 * Executors written against @a2a-js/sdk 0.3 (Google ADK's `A2AAgentExecutor`
 * is one): their request context and events in the v0.3 JSON shapes, which
 * core's v0.3 converters read and write. Nothing of @a2a-js/sdk 0.3 is loaded.
 */

/** The `RequestContext` an @a2a-js/sdk 0.3 executor reads (its fields; a plain object, not the 0.3 class). */
export interface V03RequestContext {
  /** The user's message, v0.3 shaped (`kind: 'message'`, parts with `kind`), carrying the task and context ids. */
  readonly userMessage: V03Message;
  readonly taskId: string;
  readonly contextId: string;
  /** On a follow-up turn: the task, v0.3 shaped, still in its interrupted state (input-required). */
  readonly task?: V03Task;
  readonly referenceTasks?: V03Task[];
  /** The call: user, requested extensions, tenant (the same object a 1.x executor gets). */
  readonly context?: ServerCallContext;
}

/** The event bus an @a2a-js/sdk 0.3 executor publishes to: v0.3 events (`kind` `task`, `message`, `status-update`, `artifact-update`). */
export interface V03ExecutionEventBus {
  publish(event: V03StreamEvent): void;
  finished(): void;
}

/** `T` with its fields and arrays writable, as @a2a-js/sdk 0.3 declares its types. */
type Writable<T> = T extends readonly (infer U)[] ? Writable<U>[] : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;

/**
 * An @a2a-js/sdk 0.3 `AgentExecutor` (say Google ADK's `A2AAgentExecutor`),
 * as `fromA2AExecutor` takes it with `{ protocol: '0.3' }`: `execute` gets a
 * {@link V03RequestContext} and a bus taking v0.3 events.
 */
export interface V03AgentExecutor {
  execute(requestContext: Writable<Omit<V03RequestContext, 'context'>>, eventBus: V03ExecutionEventBus): Promise<void>;
  cancelTask(taskId: string, eventBus: V03ExecutionEventBus): Promise<void>;
}

/** The request context of a run for a 0.3 executor: what a2a-js 0.3's server gives (a follow-up turn's task still input-required). */
export function v03RequestContext(ctx: AgentContext, context: ServerCallContext): V03RequestContext {
  const taskId = ctx.task.id;
  const contextId = ctx.task.contextId;
  const task = ctx.isContinuation ? { ...taskToV03(ctx.task), status: { state: stateToV03('TASK_STATE_INPUT_REQUIRED'), timestamp: ctx.task.status.timestamp } } : undefined;
  return {
    userMessage: { ...messageToV03(ctx.message), taskId, contextId },
    taskId,
    contextId,
    task,
    referenceTasks: ctx.referencedTasks.map(taskToV03),
    context,
  };
}

const V03_KINDS = new Set(['task', 'message', 'status-update', 'artifact-update']);

/**
 * A published event in a2a-js's 1.x form: a v0.3 event (told by its `kind`,
 * and by having no `data`, which every 1.x event has) is read with core's
 * v0.3 converter; anything else passes unchanged.
 */
export function toJsEvent(event: AgentExecutionEvent | V03StreamEvent): AgentExecutionEvent {
  if ('data' in event || !V03_KINDS.has(event.kind)) return event as AgentExecutionEvent;
  const response = v03StreamEventToV1(event);
  if ('task' in response) return { kind: 'task', data: toJsTask(response.task) };
  if ('message' in response) return { kind: 'message', data: toJsMessage(response.message) };
  if ('statusUpdate' in response) {
    const { taskId, contextId, status, metadata } = response.statusUpdate;
    return { kind: 'statusUpdate', data: { taskId, contextId, status: status && toJsStatus(status), metadata } };
  }
  const { taskId, contextId, artifact, append, lastChunk, metadata } = response.artifactUpdate;
  return { kind: 'artifactUpdate', data: { taskId, contextId, artifact: artifact && toJsArtifact(artifact), append: append ?? false, lastChunk: lastChunk ?? false, metadata } };
}
