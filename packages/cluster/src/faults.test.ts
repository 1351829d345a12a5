import type { Task } from '@taskwire/core';
import { PROCESS_STOPPED } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, finalTasks, isRetryable, send, unexpected, until } from './support/fault-kit.js';
import { FaultProxy } from './support/fault-proxy.js';
import { storedLogProblems } from './support/logs.js';

/** Short, so the suite stays short; every fault below that is meant to be survived is shorter than it. */
const LEASE_TTL_MS = 4_000;
/** The replica the faults hit; the others read and cancel. */
const HIT = 0;

describePostgres('faults between replicas and PostgreSQL: 3 replica processes, each behind a fault-injecting TCP proxy', (db) => {
  let cluster: Cluster;
  const proxies: FaultProxy[] = [];
  const figures: Record<string, unknown>[] = [];
  const target = () => {
    const url = new URL(db.url);
    return { host: url.hostname, port: Number(url.port || 5432) };
  };

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) proxies.push(await FaultProxy.start(target()));
    const schema = await db.schema('tw_faults');
    cluster = await Cluster.start({ size: 3, databaseUrl: db.url, databaseUrls: proxies.map((p) => p.url(db.url)), schema, args: ['--lease-ttl-ms', String(LEASE_TTL_MS)] });
  }, 180_000);
  afterAll(async () => {
    process.stdout.write(`fault figures: ${JSON.stringify(figures)}\n`);
    await cluster?.close();
    await Promise.all(proxies.map((p) => p.close()));
  });

  const hit = () => cluster.transport('JSON-RPC', HIT);
  const reader = () => cluster.transport('JSON-RPC', 1);
  /** Long tasks planted on the replica the fault hits, each `rounds` of 100 ms. */
  const plant = (count: number, rounds: number) => Promise.all(Array.from({ length: count }, () => send(hit(), `slow ${rounds} 100`)));
  /** Blocking echoes sent to the hit replica while the fault goes on: the acknowledged ones must all be stored. */
  const echoes = (until: () => boolean) =>
    (async () => {
      const acked: string[] = [];
      let refused = 0;
      while (!until()) {
        try {
          acked.push((await send(hit(), 'echo during the fault', { blocking: true })).id);
        } catch (error) {
          if (!isRetryable(error)) throw error;
          refused++;
        }
      }
      return { acked, refused };
    })();
  /** Checks and records one scenario's outcome: healthy tasks failed, acknowledged tasks lost, processes crashed. */
  const report = async (fault: string, tasks: Map<string, Task>, acked: string[], extra: Record<string, unknown>) => {
    const stored = await finalTasks(reader(), acked, 10_000, true);
    const outcome = { fault, healthyFailed: unexpected(tasks, 'TASK_STATE_COMPLETED').length, ackedLost: acked.length - stored.size, crashed: crashed(cluster).length, acked: acked.length, ...extra };
    figures.push(outcome);
    if (outcome.healthyFailed > 0) process.stdout.write(`the hit replica's log:\n${cluster.stderr(HIT)}\n`);
    expect(unexpected(tasks, 'TASK_STATE_COMPLETED')).toEqual([]);
    expect(crashed(cluster)).toEqual([]);
    expect(await storedLogProblems(db.url, cluster.schema, [...tasks.keys(), ...acked])).toEqual([]);
  };

  it('every connection of a replica reset 15 times while its tasks run: none is failed, the replica reconnects each time', async () => {
    const planted = await plant(4, 40);
    let done = false;
    const load = echoes(() => done);
    const started = Date.now();
    for (let i = 0; i < 15; i++) {
      proxies[HIT]!.reset();
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    done = true;
    const { acked, refused } = await load;
    const recoverMs = await until(async () => (await hit().unary('GetTask', { id: planted[0]!.id }).catch(() => undefined)) !== undefined, 'the hit replica to answer', 10_000);
    const tasks = await finalTasks(reader(), planted.map((t) => t.id), 30_000);
    await report('reset x15', tasks, acked, { refusedCalls: refused, faultMs: Date.now() - started, recoverMs });
  }, 90_000);

  it('half-open for less than the lease (the path goes silent, sockets stay open): found by the ping, replaced, no task failed', async () => {
    const planted = await plant(4, 60);
    const before = cluster.stderr(HIT).split('no answer to a ping').length;
    const silencedAt = Date.now();
    proxies[HIT]!.silence(1_500);
    const detectMs = await until(() => cluster.stderr(HIT).split('no answer to a ping').length > before, 'the hit replica to find its silent connection', 15_000);
    const recoverMs = (await until(async () => (await hit().unary('GetTask', { id: planted[0]!.id }).catch(() => undefined)) !== undefined, 'the hit replica to answer', 15_000)) + detectMs;
    const tasks = await finalTasks(reader(), planted.map((t) => t.id), 40_000);
    await report('half-open 1.5 s', tasks, [], { detectMs, recoverMs, sinceSilenceMs: Date.now() - silencedAt });
  }, 90_000);

  it('refused and reset for less than the lease (its database down for it): calls get a retryable error, runs go on, no crash', async () => {
    const planted = await plant(3, 40);
    let done = false;
    const load = echoes(() => done);
    proxies[HIT]!.refuse(1_500);
    proxies[HIT]!.reset();
    // The fault lasts its time under load (the load, not this wait, is what is checked).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    done = true;
    const { acked, refused } = await load;
    const tasks = await finalTasks(reader(), planted.map((t) => t.id), 30_000);
    await report('refused 1.5 s', tasks, acked, { refusedCalls: refused });
  }, 90_000);

  it('an agent that goes on by itself after auth-required completes its task, also through a reset in between', async () => {
    const waiting = await Promise.all([send(hit(), 'auth wait 1500', { blocking: true }), send(hit(), 'auth wait 1500', { blocking: true })]);
    expect(waiting.map((t) => t.status.state)).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);
    proxies[HIT]!.reset();
    const tasks = await finalTasks(reader(), waiting.map((t) => t.id), 20_000);
    await report('auth-required, then on by itself', tasks, [], {});
  }, 60_000);

  it('overlapping runs of one task: the older run ending late releases nothing of the newer, which completes; a cancel from another replica aborts the current run', async () => {
    const asked = await Promise.all([send(hit(), 'ask linger 1500', { blocking: true }), send(hit(), 'ask linger 1500', { blocking: true })]);
    expect(asked.map((t) => t.status.state)).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    // Answered at once, on the same replica: the second run starts while the first is still ending.
    const [completes, canceled] = asked as [Task, Task];
    await send(hit(), `slow ${Math.ceil((1_500 + LEASE_TTL_MS * 1.5) / 100)} 100`, { taskId: completes.id });
    await send(hit(), 'slow 300 100', { taskId: canceled.id });
    // Well after the first runs ended (and after a lease would have expired had they released the second runs' leases).
    await until(async () => (await reader().unary('GetTask', { id: canceled.id, historyLength: 0 })).status.state === 'TASK_STATE_WORKING', 'the second run', 10_000);
    // Past the end of the first runs (they tidy up for 1.5 s): had they released the second runs' leases, those expire meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect((await cluster.transport('JSON-RPC', 2).unary('CancelTask', { id: canceled.id })).status.state).toBe('TASK_STATE_CANCELED');
    const tasks = await finalTasks(reader(), [completes.id], 30_000);
    await report('overlapping runs', tasks, [], {});
    // The canceled run stopped: nothing was written after the cancel, and the task stays canceled.
    expect(await storedLogProblems(db.url, cluster.schema, [canceled.id])).toEqual([]);
    expect((await hit().unary('GetTask', { id: canceled.id, historyLength: 0 })).status.state).toBe('TASK_STATE_CANCELED');
  }, 60_000);

  it('cut off for longer than the lease: the replica stops its runs itself, another settles them once; the replica serves again afterwards', async () => {
    const planted = await plant(2, 300);
    const cutAt = Date.now();
    proxies[HIT]!.silence(LEASE_TTL_MS * 2);
    const tasks = await finalTasks(reader(), planted.map((t) => t.id), LEASE_TTL_MS * 6);
    const settledMs = Date.now() - cutAt;
    for (const task of tasks.values()) {
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(task.status.message?.parts).toEqual([{ text: PROCESS_STOPPED }]);
    }
    expect(cluster.stderr(HIT)).toContain('could not renew the lease');
    const recoverMs = await until(async () => (await hit().unary('GetTask', { id: planted[0]!.id }).catch(() => undefined)) !== undefined, 'the hit replica to answer again', 30_000);
    expect(crashed(cluster)).toEqual([]);
    expect(await storedLogProblems(db.url, cluster.schema, planted.map((t) => t.id))).toEqual([]);
    figures.push({ fault: `cut off ${LEASE_TTL_MS * 2} ms (lease ${LEASE_TTL_MS} ms)`, settledByAnotherMs: settledMs, recoverMs, crashed: 0 });
  }, 90_000);
});
