import { expect } from 'vitest';
import { userMessage } from '../harness.js';
import { requirement } from '../requirement.js';

/** SendMessage: new task vs continue vs reject, blocking and non-blocking. */
export const sendRequirements = [
  requirement('send-new-task', '3.4.2', 'a message without taskId creates a task with a server-generated id and a contextId', async (h) => {
    const task = await h.send('echo hi');
    expect(task.id).toMatch(/.+/);
    expect(task.contextId).toMatch(/.+/);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await h.send('echo hi');
    expect(again.id).not.toBe(task.id);
  }),
  requirement('send-message-reply', '3.1.1', 'an agent may answer with a direct Message: no task is made', async (h) => {
    const result = await h.client.unary('SendMessage', { message: userMessage('ping', { contextId: 'ctx-reply' }) });
    if (!('message' in result)) throw new Error(`expected a message, got ${JSON.stringify(result)}`);
    expect(result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'pong' }], contextId: 'ctx-reply' });
    expect(result.message.taskId).toBeUndefined();
    expect(result.message.messageId).toMatch(/.+/);
    expect((await h.client.unary('ListTasks', { contextId: 'ctx-reply' })).tasks).toEqual([]);
  }),
  requirement('send-keeps-context', '3.4.1', "a client-provided contextId is kept on the task", async (h) => {
    const task = await h.send('echo hi', { contextId: 'ctx-kept' });
    expect(task.contextId).toBe('ctx-kept');
  }),
  requirement('send-continue-interrupted', '3.4.3', 'a message naming an input-required task continues that same task', async (h) => {
    const first = await h.send('a sunset quote please');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await h.send('general', { taskId: first.id });
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
    const texts = (second.history ?? []).map((m) => [m.role, m.parts[0] && 'text' in m.parts[0] ? m.parts[0].text : '']);
    expect(texts[0]).toEqual(['ROLE_USER', 'a sunset quote please']);
    expect(texts).toContainEqual(['ROLE_AGENT', 'Do you want Instagram, Pinterest, or General?']);
    expect(texts).toContainEqual(['ROLE_USER', 'general']);
  }),
  requirement('send-continue-auth-required', '7.6', 'an auth-required task takes the next message on the same task', async (h) => {
    const first = await h.send('auth');
    expect(first.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const second = await h.send('here are my credentials', { taskId: first.id, contextId: first.contextId });
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
  }),
  requirement('send-terminal-rejected', '3.1.1', 'a message to a terminal task is UnsupportedOperation (-32004) and changes nothing', async (h) => {
    const done = await h.send('echo once');
    const error = await h.error(h.send('echo twice', { taskId: done.id }));
    expect(error.code).toBe(-32004);
    const after = await h.client.unary('GetTask', { id: done.id });
    expect(after).toEqual(done);
  }),
  requirement('send-unknown-task', '3.4.2', 'a message naming an unknown taskId is TaskNotFound (-32001)', async (h) => {
    const error = await h.error(h.send('hello', { taskId: 'no-such-task' }));
    expect(error.code).toBe(-32001);
  }),
  requirement('send-context-mismatch', '3.4.3', 'a taskId with a different contextId is rejected (-32602)', async (h) => {
    const first = await h.send('quote');
    const error = await h.error(h.send('insta', { taskId: first.id, contextId: 'another-context' }));
    expect(error.code).toBe(-32602);
    const after = await h.client.unary('GetTask', { id: first.id });
    expect(after.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  }),
  requirement('send-infers-context', '3.4.3', 'a message with only a taskId continues in the task context', async (h) => {
    const first = await h.send('quote', { contextId: 'ctx-infer' });
    const second = await h.send('pinterest', { taskId: first.id });
    expect(second.contextId).toBe('ctx-infer');
  }),
  requirement('send-blocking-waits', '3.2.2', 'a blocking send returns the terminal task with all its artifacts', async (h) => {
    const task = await h.send('slow 3 5');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts).toHaveLength(3);
  }),
  requirement('send-non-blocking', '3.2.2', 'returnImmediately returns the task before it finishes', async (h) => {
    const task = await h.send('slow 3 20', {}, { returnImmediately: true });
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    const events = await h.collect(h.client.stream('SubscribeToTask', { id: task.id }));
    const last = events.at(-1)?.response;
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const done = await h.client.unary('GetTask', { id: task.id });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  }),
  requirement('send-history-length', '3.2.4', 'configuration.historyLength 0 omits history from the returned task', async (h) => {
    const task = await h.send('echo x', {}, { historyLength: 0 });
    expect(task.history).toBeUndefined();
  }),
  requirement('send-invalid-params', '3.3.2', 'a message with no parts is InvalidParams (-32602) naming the field', async (h) => {
    const error = await h.error(
      h.client.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('message.parts');
  }),
  requirement('send-duplicate-message', '3.3.1', 'a re-sent message (same messageId) is not appended twice', async (h) => {
    const first = await h.send('quote');
    const message = { messageId: 'dup-1', role: 'ROLE_USER' as const, parts: [{ text: 'general' }], taskId: first.id };
    await h.client.unary('SendMessage', { message });
    await h.client.unary('SendMessage', { message }).catch(() => undefined);
    const task = await h.client.unary('GetTask', { id: first.id });
    expect(task.history?.filter((m) => m.messageId === 'dup-1')).toHaveLength(1);
  }),
  requirement('agent-fail-and-reject', '4.1.3', 'failed and rejected tasks carry an agent message saying why', async (h) => {
    const failed = await h.send('fail');
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.status.message?.role).toBe('ROLE_AGENT');
    const rejected = await h.send('reject');
    expect(rejected.status.state).toBe('TASK_STATE_REJECTED');
    expect(rejected.status.message?.parts.length).toBeGreaterThan(0);
  }),
];
