import type { Agent, Message, Task, TaskStore } from '@taskwire/core';
import { A2AError, LeaseLostError, TaskService } from '@taskwire/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator } from './coordinator.js';
import { openTestReplica, type TestReplica } from './replica-test-kit.js';

const user = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

/** What the agent did, seen from the test. */
const seen = { started: [] as string[], aborted: false, error: undefined as unknown, gate: Promise.resolve(), open: () => {} };

/** `silent`: says nothing until the test opens the gate, then tries to complete. `ask`: input-required, then completes with the answer. */
const agent: Agent = async (ctx) => {
  seen.started.push(ctx.task.id);
  if (ctx.isContinuation) return ctx.complete(`answer: ${ctx.text}`);
  if (ctx.text === 'ask') return ctx.inputRequired('what now?');
  await seen.gate;
  seen.aborted = ctx.signal.aborted;
  await ctx.complete('late').catch((error: unknown) => void (seen.error = error));
};

/** A replica whose store loses the answer of the next commit when told to (stored, then the connection "dies"). */
async function openLossyReplica(db: TestDatabase, schema: string, leaseTtlMs: number) {
  const real = await createPostgresTaskStore({ pool: db.pool, schema });
  const coordinator = await createPostgresCoordinator({ store: real, leaseTtlMs });
  const lossy = { loseNext: false };
  const store: TaskStore = {
    get: (id) => real.get(id),
    commit: (request) => {
      if (!lossy.loseNext) return real.commit(request);
      lossy.loseNext = false;
      return real.commit(request).then(() => Promise.reject(new A2AError('Internal', 'The connection to the task database was lost', { retryable: 'true' })));
    },
    list: (query) => real.list(query),
    delete: (id) => real.delete(id),
    readEvents: (id, after, limit) => real.readEvents(id, after, limit),
    close: () => real.close(),
  };
  const service = new TaskService({ store, agent, coordinator });
  const close = async () => {
    await service.close();
    await coordinator.close();
    await real.close();
  };
  return { service, coordinator, lossy, close };
}

describePostgres('every commit fenced, exactly once through lost answers (replicas on one schema)', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  const closers: (() => Promise<void>)[] = [];
  const row = async (id: string) =>
    (await db.pool.query<{ state: string; version: number; lease_holder: string | null; lease_epoch: number | null }>(`SELECT state, version, lease_holder, lease_epoch FROM ${S}.tasks WHERE id = $1`, [id])).rows[0];
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  beforeEach(async () => {
    let open!: () => void;
    seen.gate = new Promise<void>((resolve) => (open = resolve));
    Object.assign(seen, { started: [], aborted: false, error: undefined, open });
    schema = await db.schema('tw_fencing');
    S = quoteSchema(schema);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await db.drop(schema);
  });

  it('a held-back blocking run: its lost lease aborts it, and once another replica holds the task its late commit is refused', async () => {
    const a: TestReplica = await openTestReplica(db, schema, { agent, leaseTtlMs: 1_000 });
    closers.push(() => a.close());
    const call = new AbortController();
    const blocking = a.service.unary('SendMessage', { message: user('silent') }, { signal: call.signal });
    blocking.catch(() => undefined);
    await until(async () => seen.started.length === 1);
    const id = seen.started[0]!;
    // The agent is silent past the window: the task is stored alone, its lease held by A.
    await until(async () => (await row(id))?.lease_holder === a.coordinator.processId);
    // A's lease is lost and expired (A could not renew, say); A's own sweep takes the task over while the run is still going...
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = 'lost', lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await until(async () => (await row(id))?.lease_holder === a.coordinator.processId);
    // ...and then another replica takes it over, as a take-over does (the version moves on, the epoch is the new version).
    await db.pool.query(
      `UPDATE ${S}.tasks SET lease_holder = 'replica-b', version = version + 1, lease_epoch = version + 1, lease_expires_at = now() + interval '1 hour' WHERE id = $1`,
      [id],
    );
    const before = (await row(id))!;
    seen.open();
    await a.service.idle();
    expect(seen.aborted).toBe(true);
    expect(seen.error).toBeInstanceOf(LeaseLostError);
    expect(await row(id)).toEqual(before);
    expect(before.state).toBe('TASK_STATE_SUBMITTED');
    call.abort();
  });

  it('a continuation whose commit landed but whose answer was lost: sent again to a replica while the lease is live, nothing runs; sent again to its holder, it runs', async () => {
    const a = await openLossyReplica(db, schema, 10_000);
    closers.push(a.close);
    const b = await openTestReplica(db, schema, { agent, leaseTtlMs: 10_000 });
    closers.push(() => b.close());
    const asked = await a.service.unary('SendMessage', { message: user('ask') });
    const id = (asked as { task: Task }).task.id;
    const reply = user('insta', { taskId: id });
    a.lossy.loseNext = true;
    await expect(a.service.unary('SendMessage', { message: reply })).rejects.toMatchObject({ metadata: { retryable: 'true' } });
    expect(await row(id)).toMatchObject({ state: 'TASK_STATE_SUBMITTED', lease_holder: a.coordinator.processId });
    // B cannot know A runs nothing: A's lease is live, so the lease says someone does.
    const onB = await b.service.unary('SendMessage', { message: reply });
    expect((onB as { task: Task }).task.status.state).toBe('TASK_STATE_SUBMITTED');
    // A holds the lease and knows no run of its own does: it starts the run the message is owed.
    const onA = await a.service.unary('SendMessage', { message: reply });
    expect((onA as { task: Task }).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((onA as { task: Task }).task.status.message?.parts).toEqual([{ text: 'answer: insta' }]);
    expect((onA as { task: Task }).task.history?.filter((m) => m.messageId === reply.messageId)).toHaveLength(1);
    expect(seen.started.filter((t) => t === id)).toHaveLength(2);
  });

  it('a message sent again to a task no live lease holds runs on any replica, once', async () => {
    const a = await openLossyReplica(db, schema, 10_000);
    closers.push(a.close);
    const b = await openTestReplica(db, schema, { agent, leaseTtlMs: 10_000 });
    closers.push(() => b.close());
    const asked = await a.service.unary('SendMessage', { message: user('ask') });
    const id = (asked as { task: Task }).task.id;
    const reply = user('pinterest', { taskId: id });
    a.lossy.loseNext = true;
    await expect(a.service.unary('SendMessage', { message: reply })).rejects.toMatchObject({ metadata: { retryable: 'true' } });
    // A's lease is gone (expired and settled by nobody yet, or handed over at a clean stop).
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = NULL, lease_epoch = NULL, lease_expires_at = NULL WHERE id = $1`, [id]);
    const answers = await Promise.allSettled([b.service.unary('SendMessage', { message: reply }), a.service.unary('SendMessage', { message: reply })]);
    await Promise.all([a.service.idle(), b.service.idle()]);
    // The one whose claim won waited for the run; the other found the task still running (a duplicate) or already finished.
    const states = answers.map((answer) => (answer.status === 'fulfilled' ? (answer.value as { task: Task }).task.status.state : (answer.reason as A2AError).code));
    expect(states).toContain('TASK_STATE_COMPLETED');
    expect(states.filter((state) => state === 'TASK_STATE_COMPLETED' || state === 'TASK_STATE_WORKING' || state === 'TASK_STATE_SUBMITTED' || state === -32004)).toHaveLength(2);
    expect((await row(id))?.state).toBe('TASK_STATE_COMPLETED');
    // The ask, then exactly one run of the reply.
    expect(seen.started.filter((t) => t === id)).toHaveLength(2);
  });
});
