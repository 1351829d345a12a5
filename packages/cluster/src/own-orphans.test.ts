import type { Task } from '@taskwire/core';
import { isTerminal, PROCESS_STOPPED } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, finalTasks, message, send, until } from './support/fault-kit.js';
import { FaultProxy } from './support/fault-proxy.js';
import { storedLogProblems } from './support/logs.js';

/** Short, so each case takes seconds. */
const LEASE_TTL_MS = 3_000;
/** The replica whose runs go missing; the other one reads and retries. */
const HIT = 0;

/**
 * A task whose run is gone while its replica stays busy with other runs
 * (whose heartbeat then keeps every row naming it alive for the others)
 * settles anyway: the replica's own sweep takes the rows no run of its
 * holds. Two replica processes of the reference agent, the hit one behind
 * a fault-injecting proxy.
 */
describePostgres('a task whose run is gone settles while its replica stays busy: 2 replica processes', (db) => {
  let cluster: Cluster;
  const proxies: FaultProxy[] = [];
  let pool: pg.Pool;
  const S = () => `"${cluster.schema}"`;

  beforeAll(async () => {
    const url = new URL(db.url);
    for (let i = 0; i < 2; i++) proxies.push(await FaultProxy.start({ host: url.hostname, port: Number(url.port || 5432) }));
    const schema = await db.schema('tw_own_orphans');
    cluster = await Cluster.start({ size: 2, databaseUrl: db.url, databaseUrls: proxies.map((p) => p.url(db.url)), schema, args: ['--lease-ttl-ms', String(LEASE_TTL_MS)] });
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await Promise.all(proxies.map((p) => p.close()));
    await pool?.end();
  });

  const hit = () => cluster.transport('JSON-RPC', HIT);
  const other = () => cluster.transport('JSON-RPC', 1 - HIT);
  /** Where tasks are read: the other replica while it lives. */
  let reader = other;
  const state = async (id: string) => (await reader().unary('GetTask', { id, historyLength: 0 })).status.state;
  const holderOf = async (id: string) => (await pool.query<{ lease_holder: string }>(`SELECT lease_holder FROM ${S()}.tasks WHERE id = $1`, [id])).rows[0]!.lease_holder;
  /**
   * Keeps `holder`'s heartbeat alive from outside until the function
   * returned is called: what a replica's heartbeat does while it holds any
   * other run, with no race against the time a pause happens to end.
   */
  const pinHeartbeat = (holder: string) => {
    const pin = () => pool.query(`UPDATE ${S()}.lease_heartbeats SET expires_at = now() + interval '1 hour' WHERE holder = $1`, [holder]).catch(() => undefined);
    void pin();
    const timer = setInterval(pin, 100);
    return () => clearInterval(timer);
  };
  /** A run on the hit replica that outlives the case: it keeps that replica's heartbeat alive for real. Its rounds are further apart than the lease, so its row's own expiry passes while it runs. */
  const busy = async () => {
    const task = await send(hit(), `slow 5 ${LEASE_TTL_MS + 1_000}`);
    await until(async () => (await state(task.id)) === 'TASK_STATE_WORKING', 'the busy run to start', 10_000);
    return task;
  };
  /** The task settled while `busy` was still running, failed as a task whose run stopped; with `busyCompletes`, the busy run then completes (the sweeps left it alone though its row's expiry passed while it ran). */
  const settledFirst = async (orphan: string, busyTask: Task, busyCompletes = false) => {
    const [settled] = (await finalTasks(reader(), [orphan], LEASE_TTL_MS * 20)).values();
    expect(isTerminal(await state(busyTask.id))).toBe(false);
    expect(settled!.status.state).toBe('TASK_STATE_FAILED');
    expect(settled!.status.message?.parts).toEqual([{ text: PROCESS_STOPPED }]);
    if (busyCompletes) {
      const [done] = (await finalTasks(reader(), [busyTask.id], LEASE_TTL_MS * 10)).values();
      expect(done!.status.state).toBe('TASK_STATE_COMPLETED');
    }
    expect(crashed(cluster)).toEqual([]);
    expect(await storedLogProblems(db.url, cluster.schema, [orphan, busyTask.id])).toEqual([]);
  };

  it('a replica paused past its lease gives its run up; the task settles while the replica runs another task', async () => {
    const orphan = await send(hit(), 'slow 600 100');
    await until(async () => (await state(orphan.id)) === 'TASK_STATE_WORKING', 'the run to start', 10_000);
    const unpin = pinHeartbeat(await holderOf(orphan.id));
    try {
      const child = cluster.replicas[HIT]!.process.child;
      child.kill('SIGSTOP');
      // The pause lasts its time (past nine tenths of the lease, where the replica gives its runs up).
      await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS * 1.5));
      child.kill('SIGCONT');
      await until(() => cluster.stderr(HIT).includes('could not renew the lease'), 'the hit replica to give its run up', 10_000);
      const busyTask = await busy();
      unpin();
      await settledFirst(orphan.id, busyTask, true);
    } finally {
      unpin();
    }
  }, 90_000);

  it("a continuation whose claiming commit landed but whose answer was lost settles while its replica runs another task; the client's retry elsewhere is not left waiting", async () => {
    const asked = await send(hit(), 'a quote please', { blocking: true });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const busyTask = await busy();
    const answer = message('insta', asked.id);
    const lost = proxies[HIT]!.loseAnswerTo(answer.messageId);
    await expect(hit().unary('SendMessage', { message: answer, configuration: { returnImmediately: true } })).rejects.toThrow();
    await lost;
    // The client sends it again, to the other replica: a duplicate, the hit replica's lease still live.
    const retried = await other().unary('SendMessage', { message: answer, configuration: { returnImmediately: true } });
    expect('task' in retried && retried.task.id).toBe(asked.id);
    await settledFirst(asked.id, busyTask);
  }, 90_000);

  it('a message sent again to another replica just after the lease of its paused run expired never runs a second time: the task fails once', async () => {
    const asked = await send(hit(), 'ask linger 0', { blocking: true });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // A run that emits nothing for 6 s: the task stays submitted while it runs.
    const answer = message('slow 1 6000', asked.id);
    await hit().unary('SendMessage', { message: answer, configuration: { returnImmediately: true } });
    const child = cluster.replicas[HIT]!.process.child;
    child.kill('SIGSTOP');
    let retried;
    try {
      const expired = async () =>
        (
          await pool.query<{ expired: boolean }>(
            `SELECT greatest(t.lease_expires_at, b.expires_at) < now() AS expired FROM ${S()}.tasks t LEFT JOIN ${S()}.lease_heartbeats b ON b.holder = t.lease_holder WHERE t.id = $1`,
            [asked.id],
          )
        ).rows[0]!.expired;
      await until(expired, 'the paused run\'s lease to expire', LEASE_TTL_MS * 10, 10);
      // The client's retry of the same message, to the other replica, while the paused run still exists.
      retried = await other().unary('SendMessage', { message: answer, configuration: { returnImmediately: true } });
    } finally {
      child.kill('SIGCONT');
    }
    expect('task' in retried && retried.task.id).toBe(asked.id);
    const [settled] = (await finalTasks(reader(), [asked.id], LEASE_TTL_MS * 20)).values();
    expect(settled!.status.state).toBe('TASK_STATE_FAILED');
    expect(settled!.status.message?.parts).toEqual([{ text: PROCESS_STOPPED }]);
    const stored = await other().unary('GetTask', { id: asked.id });
    expect(stored.history?.filter((m) => m.messageId === answer.messageId)).toHaveLength(1);
    expect(await storedLogProblems(db.url, cluster.schema, [asked.id])).toEqual([]);
  }, 90_000);

  it("a take-over whose settling commit meets a transient error is settled again while the taking replica runs another task (the other replica killed)", async () => {
    const busyTask = await busy();
    const orphan = await send(other(), 'slow 600 100');
    await until(async () => (await state(orphan.id)) === 'TASK_STATE_WORKING', 'the run to start', 10_000);
    reader = hit;
    // The hit replica takes the task over once the killed one's lease expired; the commit that fails it meets a reset.
    const failed = proxies[HIT]!.failStatement('stopped while this task was running');
    await cluster.kill(1 - HIT);
    await failed;
    await settledFirst(orphan.id, busyTask);
  }, 90_000);
});
