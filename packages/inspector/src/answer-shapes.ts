import type { A2AClient } from '@taskwire/client';
import type { StreamEvent, Task } from '@taskwire/core';
import { TaskStateSchema } from '@taskwire/core';

/** The part of a client the check battery uses. */
export type CheckClient = Pick<A2AClient, 'sendStreamingMessage' | 'subscribeToTask' | 'getTask' | 'cancelTask'>;

/** An agent's answer that is not the shape A2A gives it: the message names what came and what was expected. */
export class AnswerShapeError extends Error {
  override readonly name = 'AnswerShapeError';
}

/** A short, one-line view of what the agent sent. */
function glimpse(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : value === undefined ? 'nothing' : `a ${typeof value}`);

/** What is wrong with the fields of a status the checks read (`state`, one of core's task states). */
function statusProblem(status: unknown, at: string): string | undefined {
  if (!isObject(status)) return `${at}: expected an object, got ${kindOf(status)}`;
  if (!TaskStateSchema.safeParse(status.state).success) return `${at}.state: expected a task state such as TASK_STATE_COMPLETED, got ${glimpse(status.state)}`;
  return undefined;
}

/** What is wrong with the fields of a Task the checks read (`id`, `status.state`), or undefined. */
function taskProblem(task: unknown, at: string): string | undefined {
  if (!isObject(task)) return `${at || '(answer)'}: expected an object, got ${kindOf(task)}`;
  if (typeof task.id !== 'string') return `${at ? `${at}.` : ''}id: expected a string, got ${kindOf(task.id)}`;
  return statusProblem(task.status, `${at ? `${at}.` : ''}status`);
}

/** What is wrong with the fields of a stream response the checks read, or undefined. */
function responseProblem(response: unknown): string | undefined {
  if (!isObject(response)) return `expected an object, got ${kindOf(response)}`;
  const members = ['task', 'message', 'statusUpdate', 'artifactUpdate'].filter((key) => key in response);
  if (members.length !== 1) return `it names ${members.length === 0 ? 'none' : members.join(' and ')}`;
  const [member] = members as ['task' | 'message' | 'statusUpdate' | 'artifactUpdate'];
  const value = response[member];
  if (member === 'task') return taskProblem(value, 'task');
  if (!isObject(value)) return `${member}: expected an object, got ${kindOf(value)}`;
  if (member === 'message') return undefined;
  if (typeof value.taskId !== 'string') return `${member}.taskId: expected a string, got ${kindOf(value.taskId)}`;
  return member === 'statusUpdate' ? statusProblem(value.status, 'statusUpdate.status') : undefined;
}

/** `value` when it is a Task (an `id`, a `status` with a task state); else throws an {@link AnswerShapeError} naming `what`. */
export function asTask(value: unknown, what: string): Task {
  const problem = taskProblem(value, '');
  if (problem === undefined) return value as Task;
  throw new AnswerShapeError(`${what} answered ${glimpse(value)}, expected a Task ({id, contextId, status: {state}}): ${problem}`);
}

/** `event` when its response is a StreamResponse with the fields the checks read; else throws an {@link AnswerShapeError} naming `what`. */
export function asStreamEvent(event: unknown, what: string): StreamEvent {
  const response = isObject(event) ? event.response : undefined;
  const problem = responseProblem(response) ?? (typeof (event as StreamEvent).sequence === 'number' ? undefined : 'it has no sequence number');
  if (problem === undefined) return event as StreamEvent;
  throw new AnswerShapeError(`${what} sent the event ${glimpse(response)}, expected one of task, message, statusUpdate, artifactUpdate: ${problem}`);
}

/** `list[field]` when it is an array of objects, checked one by one with `check`; else throws naming `what`. */
function asList(result: unknown, field: string, what: string, check: (item: unknown, at: string) => string | undefined): unknown {
  const list = isObject(result) ? result[field] : undefined;
  const problem = Array.isArray(list) ? list.map((item, i) => check(item, `${field}[${i}]`)).find((p) => p !== undefined) : `${field}: expected a list, got ${kindOf(list)}`;
  if (problem === undefined) return result;
  throw new AnswerShapeError(`${what} answered ${glimpse(result)}, expected {${field}: [...]}: ${problem}`);
}

/**
 * `result` of the unary operation `method` when it has the fields the page
 * reads (a Task for GetTask and CancelTask, `tasks` for ListTasks,
 * `configs` for ListTaskPushNotificationConfigs); else throws an
 * {@link AnswerShapeError} saying what came and what was expected.
 */
export function checkedResult(method: string, result: unknown): unknown {
  if (method === 'GetTask' || method === 'CancelTask') return asTask(result, method);
  if (method === 'ListTasks') return asList(result, 'tasks', method, taskProblem);
  if (method === 'ListTaskPushNotificationConfigs') return asList(result, 'configs', method, (item, at) => (isObject(item) ? undefined : `${at}: expected an object, got ${kindOf(item)}`));
  return result;
}

async function* checkedStream(events: AsyncIterable<unknown>, what: string): AsyncGenerator<StreamEvent> {
  for await (const event of events) yield asStreamEvent(event, what);
}

/**
 * `client` with every answer the battery reads guarded: a result that is
 * not a Task, or a stream event that is not a StreamResponse, is thrown as
 * an {@link AnswerShapeError} saying what came and what was expected, so
 * that no check reads a field of a wrong shape. Only the fields the checks
 * read are required (task ids, states), so an agent that leaves out an
 * optional-in-practice field still gets its checks run.
 */
export function shapeChecked(client: CheckClient): CheckClient {
  return {
    sendStreamingMessage: (params, options) => checkedStream(client.sendStreamingMessage(params, options), 'SendStreamingMessage'),
    subscribeToTask: (params, options) => checkedStream(client.subscribeToTask(params, options), 'SubscribeToTask'),
    getTask: async (params, options) => asTask(await client.getTask(params, options), 'GetTask'),
    cancelTask: async (params, options) => asTask(await client.cancelTask(params, options), 'CancelTask'),
  };
}
