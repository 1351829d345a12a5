import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message } from '../schema/index.js';
import { deferred, faultyStore, gatedAgent } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const user = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

describe('exactly once through lost answers', () => {
  it('an update whose first attempt failed and whose second landed with its answer lost is in the log once', async () => {
    const faulty = faultyStore();
    const agent: Agent = async (ctx) => {
      await ctx.working('started');
      // The next commit is not stored; the one after is stored, but its answer never comes back.
      faulty.faults.push('fail', 'lose');
      await ctx.working('step 2');
      await ctx.complete('done');
    };
    const service = new TaskService({ store: faulty.store, agent, newTaskWindowMs: 0 });
    const sent = await service.unary('SendMessage', { message: user('go') });
    const id = 'task' in sent ? sent.task.id : '';
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    const log = await faulty.store.readEvents(id, 0);
    const steps = log.filter((e) => 'statusUpdate' in e.event && JSON.stringify(e.event.statusUpdate.status.message?.parts) === JSON.stringify([{ text: 'step 2' }]));
    expect(steps).toHaveLength(1);
    await service.close();
  });

  it("a held-back task's first commit is retried like the rest: one failed and one lost attempt, then the task, stored once", async () => {
    const faulty = faultyStore();
    // The first commit (the task with the agent's first event) is not stored; the next is, with its answer lost.
    faulty.faults.push('fail', 'lose');
    const service = new TaskService({ store: faulty.store, agent: (ctx) => ctx.complete('done'), newTaskWindowMs: 1_000 });
    const sent = await service.unary('SendMessage', { message: user('go') });
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    const id = 'task' in sent ? sent.task.id : '';
    const log = await faulty.store.readEvents(id, 0);
    expect(log.map((e) => Object.keys(e.event)[0])).toEqual(['task', 'statusUpdate']);
    await service.close();
  });

  it('a held-back task stored alone after the window is retried too', async () => {
    const faulty = faultyStore();
    const gated = gatedAgent();
    const service = new TaskService({ store: faulty.store, agent: gated.agent, newTaskWindowMs: 0 });
    faulty.faults.push('lose');
    const sent = service.unary('SendMessage', { message: user('go') });
    const id = await gated.started;
    while ((await faulty.store.get(id)) === undefined) await new Promise((resolve) => setImmediate(resolve));
    gated.release();
    const answer = await sent;
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await faulty.store.readEvents(id, 0)).map((e) => Object.keys(e.event)[0])).toEqual(['task', 'statusUpdate']);
    await service.close();
  });

  it('a continuation whose commit landed but whose answer was lost runs when the client sends it again', async () => {
    const faulty = faultyStore();
    const agent: Agent = (ctx) => (ctx.isContinuation ? ctx.complete(`answer: ${ctx.text}`) : ctx.inputRequired('what now?'));
    const service = new TaskService({ store: faulty.store, agent, newTaskWindowMs: 0 });
    const asked = await service.unary('SendMessage', { message: user('ask') });
    const id = 'task' in asked ? asked.task.id : '';
    const reply = user('insta', { taskId: id });
    faulty.faults.push('lose');
    await expect(service.unary('SendMessage', { message: reply })).rejects.toMatchObject({ metadata: { retryable: 'true' } });
    expect((await faulty.store.get(id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const again = await service.unary('SendMessage', { message: reply });
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_COMPLETED');
    const stored = (await faulty.store.get(id))!.task;
    expect(stored.history?.filter((m) => m.messageId === reply.messageId)).toHaveLength(1);
    expect(stored.status.message?.parts).toEqual([{ text: 'answer: insta' }]);
    await service.close();
  });

  it('a new task (client-chosen id) whose creating commit landed but whose answer was lost runs when sent again, as a first message', async () => {
    const faulty = faultyStore();
    const continuations: boolean[] = [];
    const agent: Agent = (ctx) => {
      continuations.push(ctx.isContinuation);
      return ctx.complete('done');
    };
    const service = new TaskService({ store: faulty.store, agent, unknownTaskId: 'create' });
    const message = user('go', { taskId: 'client-chosen-1' });
    faulty.faults.push('lose');
    await expect(service.unary('SendMessage', { message })).rejects.toMatchObject({ metadata: { retryable: 'true' } });
    expect((await faulty.store.get('client-chosen-1'))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const again = await service.unary('SendMessage', { message });
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(continuations).toEqual([false]);
    await service.close();
  });

  it('a message sent again while its run goes on is a duplicate: the agent runs once', async () => {
    const started = deferred();
    const gate = deferred();
    let runs = 0;
    const agent: Agent = async (ctx) => {
      runs++;
      started.resolve();
      await gate.promise;
      await ctx.complete('done');
    };
    const { store } = faultyStore();
    const service = new TaskService({ store, agent, unknownTaskId: 'create' });
    const message = user('go', { taskId: 'client-chosen-2' });
    await service.unary('SendMessage', { message, configuration: { returnImmediately: true } });
    await started.promise;
    // Still submitted (the agent has emitted nothing), but it runs here.
    const again = await service.unary('SendMessage', { message });
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_SUBMITTED');
    gate.resolve();
    await service.idle();
    expect(runs).toBe(1);
    expect((await store.get('client-chosen-2'))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    await service.close();
  });
});
