import { TaskService, VersionConflictError, type Agent, type StreamEvent, type StreamResponse } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { standbyCopy } from './standby-test-kit.js';
import { createPostgresTaskStore } from './task-store.js';
import { until } from './wait-test-kit.js';

/** A promise with its resolve, for gates between the test and an agent. */
function gate<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const text = (response: StreamResponse) => JSON.stringify(response);

describePostgres('commits after lost commits: a gap in the log, never a sequence number used twice', (db) => {
  const open = async () => {
    const schema = await db.schema();
    return { S: quoteSchema(schema), store: await createPostgresTaskStore({ pool: db.pool, schema }) };
  };

  /**
   * A task whose agent says "step 1", then waits for `goOn` and runs
   * `rest`; resolves once the standby's copy of the task after "step 1"
   * is taken (`promote` makes it the stored one), with `kept` its last sequence.
   */
  const started = async (rest: (ctx: Parameters<Agent>[0]) => Promise<void>) => {
    const { S, store } = await open();
    const first = gate();
    const goOn = gate();
    const agent: Agent = async (ctx) => {
      await ctx.working('step 1');
      first.resolve();
      await goOn.promise;
      await rest(ctx);
    };
    const service = new TaskService({ store, agent, newTaskWindowMs: 0 });
    const sent = await service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] }, configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    await first.promise;
    const kept = (await store.get(id))!.lastSequence;
    const promote = await standbyCopy(db.pool, S, id);
    return { store, service, id, kept, promote, goOn: () => goOn.resolve() };
  };

  /** A task that said "step 1" (the standby's copy taken then), then "step 2" and completed at `completedAt`; its run is over. */
  const completed = async () => {
    const task = await started(async (ctx) => {
      await ctx.working('step 2');
      await ctx.complete('done');
    });
    task.goOn();
    const completedAt = await until(async () => {
      const record = await task.store.get(task.id);
      return record!.task.status.state === 'TASK_STATE_COMPLETED' && task.service.engine.peek(task.id) === undefined ? record!.lastSequence : undefined;
    });
    return { ...task, completedAt };
  };

  /** The sequences of a log that kept `kept` events, lost those up to `lost`, and has two after them. */
  const gapAfter = (kept: number, lost: number) => [...Array.from({ length: kept }, (_, i) => i + 1), lost + 1, lost + 2];

  it('commitFrom numbers the events from the given sequence, leaves the numbers between unused and refuses a sequence the log has', async () => {
    const { store } = await open();
    const task = testTask('t1', { state: 'TASK_STATE_WORKING' });
    await store.commit(commitOf(task, 0, [testEvent(task, 1), testEvent(task, 2)]));
    const failed = testTask('t1', { state: 'TASK_STATE_FAILED', at: 9 });
    // The numbers 2 and beyond are still the log's: refused, nothing changes.
    const refused = await store.commitFrom(commitOf(failed, 1, [{ task: failed }]), 2).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(VersionConflictError);
    expect((await store.get('t1'))!.lastSequence).toBe(2);
    // A version other than the stored one is refused as by commit.
    await expect(store.commitFrom(commitOf(failed, 2, [{ task: failed }]), 7)).rejects.toBeInstanceOf(VersionConflictError);

    expect(await store.commitFrom(commitOf(failed, 1, [{ task: failed }]), 7)).toEqual({ version: 2, firstSequence: 7, lastSequence: 7 });
    expect(await store.get('t1')).toMatchObject({ task: failed, version: 2, lastSequence: 7 });
    expect((await store.readEvents('t1', 0)).map((e) => e.sequence)).toEqual([1, 2, 7]);
    // A reader inside the gap gets what follows it.
    expect(await store.readEvents('t1', 4)).toEqual([{ sequence: 7, event: { task: failed } }]);
    await expect(store.commitFrom(commitOf(failed, 0, [{ task: failed }]), 9)).rejects.toBeInstanceOf(TypeError);
    await store.close();
  });

  it('a run whose store lost its last commits fails the task after what it published; resumes inside the gap get the task', async () => {
    const published = gate();
    const failover = gate();
    const fourth = gate<unknown>();
    // What the standby has when the primary dies: the task as it was after "step 1".
    const { store, service, id, kept, promote, goOn } = await started(async (ctx) => {
      await ctx.working('step 2');
      await ctx.working('step 3');
      published.resolve();
      await failover.promise;
      await ctx.working('step 4').then(
        () => fourth.resolve(undefined),
        (error: unknown) => fourth.resolve(error),
      );
      await ctx.complete('done');
    });
    // A client follows the task from there on: it sees "step 2" and "step 3".
    const seen: StreamEvent[] = [];
    const follower = (async () => {
      for await (const event of await service.stream('SubscribeToTask', { id, afterSequence: kept })) seen.push(event);
    })();
    goOn();
    await published.promise;
    const lost = (await store.get(id))!.lastSequence;
    expect(lost).toBe(kept + 2);

    // The failover: the new primary has the row and the log as they were after "step 1".
    await promote();
    failover.resolve();

    // The run stops (its "step 4" is refused), and the task failed right after the last event published here.
    expect(await fourth.promise).toMatchObject({ name: 'LeaseLostError', message: expect.stringMatching(/older than version/) });
    const log = await store.readEvents(id, 0);
    expect(log.map((e) => e.sequence)).toEqual([...Array.from({ length: kept }, (_, i) => i + 1), lost + 1]);
    const settled = log.at(-1)!.event;
    expect('task' in settled && settled.task.status.state).toBe('TASK_STATE_FAILED');
    expect(text(settled)).toMatch(/lost the last events of this task/);
    // The task as the client knew it, "step 3" included (its status message moved into the history).
    expect(text(settled)).toContain('step 3');
    expect(text(settled)).not.toContain('step 4');
    expect((await store.get(id))!.task).toEqual('task' in settled ? settled.task : undefined);

    await follower;
    // The follower saw 2 and 3 under numbers the store never uses again, then the failure after them, and ended.
    expect(seen.map((e) => e.sequence)).toEqual([kept + 1, kept + 2, lost + 1]);
    expect(text(seen.at(-1)!.response)).toBe(text(settled));
    for (const event of seen) {
      const stored = log.find((e) => e.sequence === event.sequence);
      if (stored) expect(text(stored.event)).toBe(text(event.response));
    }

    // A client resuming from inside the gap, or from its end, gets the failed task, not silence.
    for (const after of [kept + 1, lost]) {
      for (const resume of [() => service.stream('SubscribeToTask', { id, afterSequence: after }), () => service.resumeStreamingMessage({ id, afterSequence: after })]) {
        const events: StreamEvent[] = [];
        for await (const event of await resume()) events.push(event);
        expect(events.map((e) => [e.sequence, text(e.response)])).toEqual([[lost + 1, text(settled)]]);
      }
    }
    await service.close();
    await store.close();
  });

  it('a task whose last commits were lost after its run ended is failed after them by this process, the stored task first', async () => {
    const { store, service, id, kept, promote, completedAt } = await completed();
    // The failover lost "step 2" and the completion: the store has the task working, as after "step 1".
    await promote();
    expect((await store.get(id))!.task.status.state).toBe('TASK_STATE_WORKING');

    // Settling the abandoned task (here a restart's recovery; in a cluster the sweep of its own rows) fails it after what was published.
    expect(await service.recover()).toEqual([id]);
    const log = await store.readEvents(id, 0);
    expect(log.map((e) => e.sequence)).toEqual(gapAfter(kept, completedAt));
    expect(log.at(-2)!.event).toEqual({ task: expect.objectContaining({ id, status: expect.objectContaining({ state: 'TASK_STATE_WORKING' }) }) });
    expect(log.at(-1)!.event).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_FAILED' } } });
    expect((await store.get(id))!.task.status.state).toBe('TASK_STATE_FAILED');
    // A client that saw the completion and resumes after it gets the task and the failure.
    const events: StreamEvent[] = [];
    for await (const event of await service.stream('SubscribeToTask', { id, afterSequence: completedAt })) events.push(event);
    expect(events.map((e) => e.sequence)).toEqual([completedAt + 1, completedAt + 2]);
    await service.close();
    await store.close();
  });

  it('a process that only streamed the lost events to a client (another one committed them) also settles the task after them', async () => {
    const { store, service, id, kept, promote, completedAt } = await completed();
    await service.close();
    // Another process on the same tables streams the task to its client: "step 2" and the completion.
    const other = new TaskService({ store, agent: async () => undefined, newTaskWindowMs: 0 });
    const seen: StreamEvent[] = [];
    for await (const event of await other.stream('SubscribeToTask', { id, afterSequence: kept })) seen.push(event);
    expect(seen.map((e) => e.sequence)).toEqual([kept + 1, completedAt]);
    await promote();

    expect(await other.recover()).toEqual([id]);
    const log = await store.readEvents(id, 0);
    expect(log.map((e) => e.sequence)).toEqual(gapAfter(kept, completedAt));
    expect(log.at(-1)!.event).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_FAILED' } } });
    await other.close();
    await store.close();
  });
});
