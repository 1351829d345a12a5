import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CommitRequest, TaskStore } from '../store/task-store.js';
import { deferred, storeOver } from './service-test-kit.js';
import { TaskService } from './task-service.js';

/** A memory store that can lose its last commits, as a database loses them when a standby that lagged is promoted. */
function rewindableStore(): { store: TaskStore; loseLast(count: number): Promise<void> } {
  let stored: CommitRequest[] = [];
  let inner = createMemoryTaskStore();
  const store = storeOver(
    () => inner,
    async (request) => {
      const result = await inner.commit(request);
      stored.push(request);
      return result;
    },
  );
  return {
    store,
    async loseLast(count) {
      const kept = stored.slice(0, stored.length - count);
      stored = [];
      inner = createMemoryTaskStore();
      for (const request of kept) await store.commit(request);
    },
  };
}

const textOf = (event: unknown) => JSON.stringify(event);

describe('a store that went back in time', () => {
  it('ends the run at a conflict behind what it committed, and never hands out a sequence number again with other events', async () => {
    const rewindable = rewindableStore();
    const reached = deferred();
    const gate = deferred();
    const third = deferred<unknown>();
    const agent: Agent = async (ctx) => {
      await ctx.working('step 1');
      await ctx.working('step 2');
      reached.resolve();
      await gate.promise;
      await ctx.working('step 3').then(
        () => third.resolve(undefined),
        (error: unknown) => third.resolve(error),
      );
      await ctx.complete('done');
    };
    const service = new TaskService({ store: rewindable.store, agent, newTaskWindowMs: 0 });
    const sent = await service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] }, configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    await reached.promise;
    const seen = await rewindable.store.readEvents(id, 0);
    expect(textOf(seen.at(-1)!.event)).toContain('step 2');

    // A failover lost the commit of "step 2": the store is one version behind the run.
    await rewindable.loseLast(1);
    gate.resolve();
    const error = await third.promise;
    expect(error).toMatchObject({ name: 'LeaseLostError', message: expect.stringMatching(/older than version .* this process committed/) });

    // Nothing was written onto the older version: the sequence of "step 2" was not reused for "step 3" (nor anything after).
    const after = await rewindable.store.readEvents(id, 0);
    expect(after.map((e) => e.sequence)).toEqual(seen.slice(0, -1).map((e) => e.sequence));
    expect(after.some((e) => /step 3|done/.test(textOf(e.event)))).toBe(false);
    expect((await rewindable.store.get(id))!.task.status.state).toBe('TASK_STATE_WORKING');

    // Once the run is over, this process too reads the task from the store.
    while (service.engine.peek(id) !== undefined) await new Promise((resolve) => setImmediate(resolve));
    // A client that saw "step 2" and resumes after it learns that the log no longer reaches it (no silent gap, no other events).
    const last = seen.at(-1)!.sequence;
    for (const method of ['SubscribeToTask', 'resumeStreamingMessage'] as const) {
      const resumed = method === 'SubscribeToTask' ? service.stream(method, { id, afterSequence: last }) : service.resumeStreamingMessage({ id, afterSequence: last });
      await expect(resumed.then((events) => events[Symbol.asyncIterator]().next())).rejects.toMatchObject({
        kind: 'InvalidParams',
        message: expect.stringMatching(new RegExp(`afterSequence ${last} is beyond the stored log of task ${id}, which ends at ${last - 1}`)),
        metadata: { cause: 'after-sequence-beyond-log' },
      });
    }
    await service.close();
  });
});
