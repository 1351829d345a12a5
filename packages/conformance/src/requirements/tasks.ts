import { expect } from 'vitest';
import { requirement } from '../requirement.js';

/** CancelTask, GetTask and ListTasks. */
export const taskRequirements = [
  requirement('cancel-running', '3.1.5', 'canceling a running task cancels it, stops the agent and ends its streams', async (h) => {
    const task = await h.send('slow 1000 5', {}, { returnImmediately: true });
    // The subscription is open (its first event, the task, arrived) before the cancel is sent:
    // a subscribe that reached its server after the cancel would rightly be refused (terminal task).
    const stream = h.client.stream('SubscribeToTask', { id: task.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    const rest = h.collect({ [Symbol.asyncIterator]: () => stream });
    const canceled = await h.client.unary('CancelTask', { id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const seen = [first.value!, ...(await rest)];
    const last = seen.at(-1)!.response;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    await h.idle();
    const after = await h.client.unary('GetTask', { id: task.id });
    expect(after.status.state).toBe('TASK_STATE_CANCELED');
    expect((after.artifacts?.[0]?.parts.length ?? 0) < 1000).toBe(true);
  }),
  requirement('cancel-idempotent', '3.3.1', 'canceling a canceled task again answers the canceled task', async (h) => {
    const task = await h.send('quote');
    const first = await h.client.unary('CancelTask', { id: task.id });
    const second = await h.client.unary('CancelTask', { id: task.id });
    expect(second).toEqual(first);
  }),
  requirement('cancel-terminal', '3.1.5', 'canceling a completed task is TaskNotCancelable (-32002)', async (h) => {
    const task = await h.send('echo done');
    const error = await h.error(h.client.unary('CancelTask', { id: task.id }));
    expect(error.code).toBe(-32002);
  }),
  requirement('cancel-unknown', '3.1.5', 'canceling an unknown task is TaskNotFound (-32001)', async (h) => {
    expect((await h.error(h.client.unary('CancelTask', { id: 'nope' }))).code).toBe(-32001);
  }),
  requirement('get-history-length', '3.2.4', 'GetTask historyLength: unset all, 0 none, n the last n', async (h) => {
    const first = await h.send('quote');
    const task = await h.send('insta', { taskId: first.id });
    const all = await h.client.unary('GetTask', { id: task.id });
    expect(all.history!.length).toBeGreaterThanOrEqual(3);
    const none = await h.client.unary('GetTask', { id: task.id, historyLength: 0 });
    expect(none.history).toBeUndefined();
    const one = await h.client.unary('GetTask', { id: task.id, historyLength: 1 });
    expect(one.history).toEqual(all.history!.slice(-1));
  }),
  requirement('get-unknown', '3.1.3', 'GetTask on an unknown id is TaskNotFound (-32001)', async (h) => {
    expect((await h.error(h.client.unary('GetTask', { id: 'nope' }))).code).toBe(-32001);
  }),
  requirement('list-filters', '3.1.4', 'ListTasks filters by contextId and status', async (h) => {
    await h.send('echo a', { contextId: 'ctx-a' });
    await h.send('quote', { contextId: 'ctx-a' });
    await h.send('echo b', { contextId: 'ctx-b' });
    const inA = await h.client.unary('ListTasks', { contextId: 'ctx-a' });
    expect(inA.tasks.map((t) => t.contextId)).toEqual(['ctx-a', 'ctx-a']);
    expect(inA.totalSize).toBe(2);
    const waiting = await h.client.unary('ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED' });
    expect(waiting.tasks).toHaveLength(1);
    expect(waiting.tasks[0]!.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  }),
  requirement('list-order-pagination', '3.1.4', 'ListTasks pages by cursor, newest status first, with no skip or repeat', async (h) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.send(`echo ${i}`, { contextId: 'ctx-page' })).id);
    const seen: { id: string; timestamp: string }[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await h.client.unary('ListTasks', { contextId: 'ctx-page', pageSize: 2, ...(pageToken && { pageToken }) });
      expect(page.totalSize).toBe(5);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((t) => ({ id: t.id, timestamp: t.status.timestamp ?? '' })));
      pageToken = page.nextPageToken || undefined;
      pages++;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen.map((t) => t.id).sort()).toEqual([...ids].sort());
    // Newest status first; tasks updated in the same millisecond come by id, descending.
    const byRecency = [...seen].sort((a, b) => b.timestamp.localeCompare(a.timestamp) || b.id.localeCompare(a.id));
    expect(seen).toEqual(byRecency);
  }),
  requirement('list-artifacts-and-history', '3.1.4', 'ListTasks omits artifacts unless includeArtifacts, and honours historyLength', async (h) => {
    const first = await h.send('quote', { contextId: 'ctx-art' });
    await h.send('general', { taskId: first.id });
    const plain = await h.client.unary('ListTasks', { contextId: 'ctx-art' });
    expect('artifacts' in plain.tasks[0]!).toBe(false);
    const full = await h.client.unary('ListTasks', { contextId: 'ctx-art', includeArtifacts: true, historyLength: 0 });
    expect(full.tasks[0]!.artifacts).toHaveLength(1);
    expect(full.tasks[0]!.history).toBeUndefined();
  }),
  requirement('list-timestamp-after', '3.1.4', 'ListTasks statusTimestampAfter keeps only tasks whose status is at or after it', async (h) => {
    const old = await h.send('echo old', { contextId: 'ctx-ts' });
    const newer = await h.send('echo new', { contextId: 'ctx-ts' });
    const at = await h.client.unary('ListTasks', { contextId: 'ctx-ts', statusTimestampAfter: old.status.timestamp! });
    expect(at.tasks.map((t) => t.id)).toContain(old.id);
    const later = new Date(Date.parse(old.status.timestamp!) + 1).toISOString();
    const after = await h.client.unary('ListTasks', { contextId: 'ctx-ts', statusTimestampAfter: later });
    const ids = after.tasks.map((t) => t.id);
    expect(ids).not.toContain(old.id);
    if (newer.status.timestamp! >= later) expect(ids).toContain(newer.id);
  }),
  requirement('list-invalid-page-size', '3.1.4', 'ListTasks pageSize outside 1-100 is InvalidParams (-32602)', async (h) => {
    const error = await h.error(h.client.unary('ListTasks', { pageSize: 150 }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('pageSize');
  }),
  requirement('list-bad-page-token', '3.1.4', 'ListTasks with a malformed pageToken is InvalidParams (-32602)', async (h) => {
    expect((await h.error(h.client.unary('ListTasks', { pageToken: '%%%not-a-token' }))).code).toBe(-32602);
  }),
];
