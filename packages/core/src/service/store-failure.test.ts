import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { faultyStore } from './service-test-kit.js';
import { TaskService } from './task-service.js';

describe('a store that fails while a task runs', () => {
  it('fails a blocking SendMessage with the store\'s error, once its retries are over, instead of leaving it waiting', async () => {
    const { store, down } = faultyStore();
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const agent: Agent = async (ctx) => {
      await ctx.working('started');
      down();
      await gate;
      await ctx.complete('done');
    };
    const service = new TaskService({ store, agent, newTaskWindowMs: 0, storeRetryMs: 300 });
    const sent = service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    proceed();
    await expect(sent).rejects.toMatchObject({ kind: 'Internal', message: expect.stringMatching(/database is unreachable/) });
    await service.close();
  });

  it('goes on once the store is back within the retry time: the run completes, each event stored once', async () => {
    const failing = faultyStore();
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const agent: Agent = async (ctx) => {
      await ctx.working('started');
      failing.down();
      await gate;
      await ctx.artifact({ name: 'out', text: 'chunk' });
      await ctx.complete('done');
    };
    const service = new TaskService({ store: failing.store, agent, newTaskWindowMs: 0, storeRetryMs: 60_000 });
    const sent = service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    const before = failing.commits;
    proceed();
    // The run's artifact commit fails while the store is down, and is tried again.
    while (failing.commits < before + 3) await new Promise((resolve) => setTimeout(resolve, 10));
    failing.up();
    const task = await sent;
    expect('task' in task && task.task.status.state).toBe('TASK_STATE_COMPLETED');
    const id = 'task' in task ? task.task.id : '';
    const log = await failing.store.readEvents(id, 0);
    expect(log.filter((e) => 'artifactUpdate' in e.event)).toHaveLength(1);
    await service.close();
  });

  it('a commit whose answer was lost but which was stored is not applied again: each chunk once', async () => {
    const failing = faultyStore();
    const agent: Agent = async (ctx) => {
      await ctx.working('started');
      failing.faults.push('lose');
      await ctx.artifact({ name: 'out', text: 'one' });
      await ctx.artifact({ name: 'out', text: ' two' }, { append: true, lastChunk: true });
      await ctx.complete('done');
    };
    const service = new TaskService({ store: failing.store, agent, newTaskWindowMs: 0 });
    const sent = await service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    const id = 'task' in sent ? sent.task.id : '';
    const stored = await failing.store.get(id);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored?.task.artifacts?.[0]?.parts).toEqual([{ text: 'one' }, { text: ' two' }]);
    const log = await failing.store.readEvents(id, 0);
    expect(log.filter((e) => 'artifactUpdate' in e.event)).toHaveLength(2);
    await service.close();
  });
});
