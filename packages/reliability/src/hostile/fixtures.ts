import type { Task, TaskState } from '@taskwire/core';
import type { HttpTarget } from './http-exchange.js';

/** The API key the hostile-input server requires. */
export const API_KEY = 'reliability-key';

/** JSON-RPC request headers of a well-behaved caller. */
export const GOOD_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': API_KEY };

/** Tasks in every settled state, for the requests that try to move them. */
export interface FixtureTasks {
  readonly completed: Task;
  readonly failed: Task;
  readonly rejected: Task;
  readonly canceled: Task;
  readonly inputRequired: Task;
  readonly authRequired: Task;
}

/** The terminal fixtures (nothing may change them). */
export const terminal = (f: FixtureTasks): Task[] => [f.completed, f.failed, f.rejected, f.canceled];
/** The fixtures that may still be canceled (so no hostile request cancels them). */
export const open = (f: FixtureTasks): Task[] => [f.inputRequired, f.authRequired];

let ids = 0;

/** Calls one JSON-RPC method as a good caller; throws the JSON-RPC error if there is one. */
export async function call<T>(target: HttpTarget, method: string, params: unknown): Promise<T> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: `fixture-${++ids}`, method, params });
  const answer = await target.send({ method: 'POST', path: '/a2a/jsonrpc', headers: GOOD_HEADERS, body });
  const parsed = JSON.parse(answer.body) as { result?: T; error?: { message: string } };
  if (parsed.error) throw new Error(`${method} failed: ${parsed.error.message}`);
  return parsed.result as T;
}

async function sendText(target: HttpTarget, text: string, expected: TaskState, returnImmediately = false): Promise<Task> {
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
  const { task } = await call<{ task: Task }>(target, 'SendMessage', { message, configuration: { returnImmediately } });
  if (task.status.state !== expected && !returnImmediately) throw new Error(`fixture "${text}" is ${task.status.state}, not ${expected}`);
  return task;
}

/** Creates one task in each settled state. */
export async function createFixtures(target: HttpTarget): Promise<FixtureTasks> {
  const running = await sendText(target, 'slow 100 1000', 'TASK_STATE_SUBMITTED', true);
  const canceled = await call<Task>(target, 'CancelTask', { id: running.id });
  return {
    completed: await sendText(target, 'echo fixture', 'TASK_STATE_COMPLETED'),
    failed: await sendText(target, 'fail', 'TASK_STATE_FAILED'),
    rejected: await sendText(target, 'reject', 'TASK_STATE_REJECTED'),
    canceled,
    inputRequired: await sendText(target, 'write me a sunset quote', 'TASK_STATE_INPUT_REQUIRED'),
    authRequired: await sendText(target, 'auth', 'TASK_STATE_AUTH_REQUIRED'),
  };
}

/** Every task the caller can see, in full (ListTasks pages, then GetTask of each), as JSON to compare. */
export async function snapshot(target: HttpTarget): Promise<string> {
  const tasks: Task[] = [];
  for (let pageToken = ''; ; ) {
    const page = await call<{ tasks: Task[]; nextPageToken: string }>(target, 'ListTasks', { pageSize: 100, ...(pageToken && { pageToken }) });
    for (const listed of page.tasks) tasks.push(await call<Task>(target, 'GetTask', { id: listed.id }));
    if (!(pageToken = page.nextPageToken)) break;
  }
  return JSON.stringify(tasks.sort((a, b) => (a.id < b.id ? -1 : 1)));
}
