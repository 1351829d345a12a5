/**
 * Seed 001: evo-ai style task operations. Every request carries
 * `x-api-key` and `Content-Type: application/json`; `tasks/get`,
 * `tasks/cancel` and `tasks/resubscribe` name the task as `params.taskId`
 * (not `id`), cancel adds a `reason`, resubscribe adds `includeHistory` and
 * `Accept: text/event-stream`. Error codes are the spec's (-32001 not
 * found, -32002 not cancelable), not the seed's own table.
 */
import { apiKeyAuth } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SeedServer, v03UserMessage } from './seeds-fixture.js';

const KEY = { 'x-api-key': 'your-api-key' };
const STATES = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled', 'rejected', 'auth-required'];

describe('seed 001: evo-ai task operations (x-api-key, params.taskId)', () => {
  let server: SeedServer;
  beforeEach(async () => {
    server = await SeedServer.start({
      authenticate: apiKeyAuth({ 'your-api-key': 'evo-user', 'other-key': 'other-user' }),
      challenge: 'ApiKey realm="a2a", header="x-api-key"',
    });
  });
  afterEach(async () => {
    await server.close();
  });

  /** Starts a task without waiting for it (`blocking: false`) and returns its id. */
  async function start(text: string): Promise<string> {
    const task = await server.result('message/send', { message: v03UserMessage(text), configuration: { blocking: false } }, KEY);
    expect(task.kind).toBe('task');
    expect(STATES).toContain((task.status as { state: string }).state);
    return task.id as string;
  }

  it('refuses a request without x-api-key or with a wrong one: HTTP 401 with a challenge and a JSON-RPC error', async () => {
    const attempts: Record<string, string>[] = [{}, { 'x-api-key': 'wrong' }];
    for (const headers of attempts) {
      const answer = await server.rpc('tasks/get', { taskId: 'task-123' }, headers, 'req-get-task');
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('ApiKey realm="a2a", header="x-api-key"');
      expect(answer.body.jsonrpc).toBe('2.0');
      expect((answer.body.error as { message: string }).message).toMatch(/x-api-key|API key/);
    }
  });

  it('tasks/get with params.taskId answers the task: id, kebab state, contextId, history', async () => {
    const done = await server.result('message/send', { message: v03UserMessage('echo hello evo') }, KEY);
    const answer = await server.rpc('tasks/get', { taskId: done.id }, KEY, 'req-get-task');
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe('req-get-task');
    const task = answer.body.result as Record<string, any>;
    expect(task.kind).toBe('task');
    expect(task.id).toBe(done.id);
    expect(task.contextId).toBe(done.contextId);
    expect(task.status.state).toBe('completed');
    expect(task.status.message).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hello evo' }] });
    expect(task.history[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'echo hello evo' }] });
  });

  it('tasks/resubscribe with params.taskId streams the running task to its final event; tasks/get then shows the result', async () => {
    const id = await start('slow 3 10');
    const { status, contentType, events } = await server.stream('tasks/resubscribe', { taskId: id, includeHistory: true }, KEY, 'req-resubscribe');
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    const results = events.map((e) => {
      expect(e.data.jsonrpc).toBe('2.0');
      expect(e.data.id).toBe('req-resubscribe');
      return e.data.result as Record<string, any>;
    });
    expect(results[0]!.kind).toBe('task');
    expect(results[0]!.id).toBe(id);
    const last = results.at(-1)!;
    expect(last).toMatchObject({ kind: 'status-update', taskId: id, final: true, status: { state: 'completed' } });
    expect(results.slice(0, -1).every((r) => r.final !== true)).toBe(true);
    const task = await server.result('tasks/get', { taskId: id }, KEY);
    expect((task.status as { state: string }).state).toBe('completed');
    expect((task.artifacts as { artifactId: string; parts: unknown[] }[])[0]).toMatchObject({ artifactId: 'output' });
    expect((task.artifacts as { parts: unknown[] }[])[0]!.parts).toHaveLength(3);
  });

  it('tasks/cancel with params.taskId and a reason cancels a running task', async () => {
    const id = await start('slow 1000 5');
    const answer = await server.rpc('tasks/cancel', { taskId: id, reason: 'User requested cancellation' }, KEY, 'req-cancel-task');
    expect(answer.body.id).toBe('req-cancel-task');
    const task = answer.body.result as Record<string, any>;
    expect(task.kind).toBe('task');
    expect(task.id).toBe(id);
    expect(task.status.state).toBe('canceled');
    await server.service.idle();
    const after = await server.result('tasks/get', { taskId: id }, KEY);
    expect((after.status as { state: string }).state).toBe('canceled');
  });

  it('tasks/cancel on a completed task is TaskNotCancelable (-32002) naming the task', async () => {
    const done = await server.result('message/send', { message: v03UserMessage('echo finished') }, KEY);
    const error = await server.error('tasks/cancel', { taskId: done.id, reason: 'too late' }, KEY);
    expect(error.code).toBe(-32002);
    expect(error.message).toContain(done.id as string);
    expect(error.data).toEqual([expect.objectContaining({ reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org', metadata: { taskId: done.id } })]);
  });

  it('an unknown task is TaskNotFound (-32001) for get, cancel and resubscribe', async () => {
    expect((await server.error('tasks/get', { taskId: 'task-123' }, KEY)).code).toBe(-32001);
    expect((await server.error('tasks/cancel', { taskId: 'task-123' }, KEY)).code).toBe(-32001);
    const { events } = await server.stream('tasks/resubscribe', { taskId: 'task-123' }, KEY);
    expect(events).toHaveLength(1);
    expect((events[0]!.data.error as { code: number }).code).toBe(-32001);
  });

  it("a task is visible only to the key that created it", async () => {
    const id = await start('echo private');
    expect((await server.error('tasks/get', { taskId: id }, { 'x-api-key': 'other-key' })).code).toBe(-32001);
    expect((await server.error('tasks/cancel', { taskId: id }, { 'x-api-key': 'other-key' })).code).toBe(-32001);
  });
});
