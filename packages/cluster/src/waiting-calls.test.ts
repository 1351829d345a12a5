import { stateOf } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, message, until } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';

/** Short, so the case takes seconds. */
const LEASE_TTL_MS = 3_000;
/** The replica paused past its lease; the other one takes its task over and runs it again. */
const HIT = 0;

/**
 * Calls that wait for a task on a replica whose run there stopped follow
 * the task's committed events wherever it goes on: two replica processes of
 * the reference agent that run a task again when its replica stopped
 * (`--rerun-orphans 1`).
 */
describePostgres('waiting calls end when their task settles on another replica: 2 replica processes', (db) => {
  let cluster: Cluster;
  let pool: pg.Pool;

  beforeAll(async () => {
    const schema = await db.schema('tw_waiting_calls');
    cluster = await Cluster.start({ size: 2, databaseUrl: db.url, schema, args: ['--lease-ttl-ms', String(LEASE_TTL_MS), '--rerun-orphans', '1'] });
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await pool?.end();
  });

  const hit = () => cluster.transport('JSON-RPC', HIT);
  const other = () => cluster.transport('JSON-RPC', 1 - HIT);
  const takeovers = async (id: string) => (await pool.query<{ lease_takeovers: number }>(`SELECT lease_takeovers FROM "${cluster.schema}".tasks WHERE id = $1`, [id])).rows[0]?.lease_takeovers ?? 0;

  it('a blocking send and a subscription on a replica paused past its lease end with the task the other replica completed by running it again', async () => {
    const contextId = crypto.randomUUID();
    const blocking = hit().unary('SendMessage', { message: { ...message('slow 40 100'), contextId } });
    blocking.catch(() => undefined);
    let id = '';
    await until(
      async () => {
        const { tasks } = await other().unary('ListTasks', { contextId, historyLength: 0 });
        id = tasks.find((t) => t.status.state === 'TASK_STATE_WORKING')?.id ?? '';
        return id !== '';
      },
      'the run to start',
      10_000,
    );
    const events = hit().stream('SubscribeToTask', { id })[Symbol.asyncIterator]();
    expect((await events.next()).done).toBe(false);
    const streamed = (async () => {
      const states: string[] = [];
      for (let next = await events.next(); !next.done; next = await events.next()) states.push(stateOf(next.value.response) ?? '');
      return states.filter((state) => state !== '');
    })();
    const child = cluster.replicas[HIT]!.process.child;
    child.kill('SIGSTOP');
    try {
      // Resumed as soon as the other replica took the task over: its run there goes on (4 s) after this one stopped.
      await until(async () => (await takeovers(id)) > 0, 'the other replica to take the task over', LEASE_TTL_MS * 10);
    } finally {
      child.kill('SIGCONT');
    }
    const hung = () => new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the call on the paused replica never ended')), LEASE_TTL_MS * 10));
    const answer = await Promise.race([blocking, hung()]);
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await Promise.race([streamed, hung()])).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(cluster.stderr(1 - HIT)).toContain('running the agent again');
    expect(crashed(cluster)).toEqual([]);
    expect(await storedLogProblems(db.url, cluster.schema, [id])).toEqual([]);
  }, 90_000);
});
