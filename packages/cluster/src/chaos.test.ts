import { resumableStream } from '@taskwire/client';
import type { Message, StreamEvent, Task } from '@taskwire/core';
import { isSettled, isTerminal, PROCESS_STOPPED, stateOf } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { occurrences } from '@taskwire/reliability/support/lifecycle-check';
import { Random, suiteSeed } from '@taskwire/reliability/support/random';
import { expect, it } from 'vitest';
import { ChaosLoad } from './support/chaos-load.js';
import { storedLogProblems } from './support/logs.js';
import { roundRobin } from './support/round-robin.js';
import { useCluster } from './support/use-cluster.js';

/** A short lease, so that a replica cut off without its session ending is noticed quickly too. */
const LEASE_TTL_MS = 2_000;
const KILLS = 10;
const WORKERS = 6;
const SEED = suiteSeed(20_261_124);
/** How long a replica stopped with SIGTERM lets its running agents go on. */
const DRAIN_GRACE_MS = 1_500;

const message = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

describePostgres('chaos: 3 replicas under load, one killed with SIGKILL and restarted, 10 times; a graceful drain', (db) => {
  const cluster = useCluster(db, 3, ['--lease-ttl-ms', String(LEASE_TTL_MS), '--drain-grace-ms', String(DRAIN_GRACE_MS)]);

  it('loses no acknowledged task, leaves none unsettled, and every subscriber on a surviving replica sees its task end', async () => {
    const random = new Random(SEED);
    const load = new ChaosLoad(cluster(), random);
    const kills: { replica: number; at: number; back: number }[] = [];
    const restarting = new Set<Promise<void>>();
    const planted: string[] = [];
    load.start(WORKERS);
    try {
      for (let round = 0; round < KILLS; round++) {
        // Let the load run a while (the moment of the kill is what is random, nothing waits on it).
        await new Promise((resolve) => setTimeout(resolve, random.int(300, 900)));
        // Kill one of the replicas that are up, keeping one up for the load (restarts go on meanwhile).
        while (cluster().replicas.filter((r) => r.up).length < 2) await Promise.race(restarting);
        const replica = random.pick(cluster().replicas.filter((r) => r.up)).index;
        // Work the kill is sure to cut: a long task on the victim, followed from another replica.
        planted.push(await load.plant(replica));
        const kill = { replica, at: Date.now(), back: Infinity };
        kills.push(kill);
        await cluster().kill(replica);
        const back = cluster()
          .restart(replica)
          .then(() => void (kill.back = Date.now()));
        restarting.add(back);
        void back.finally(() => restarting.delete(back));
      }
      await Promise.all(restarting);
    } finally {
      await load.stop();
    }

    // Every acknowledged task is there, over any replica; all of them settle (the orphans by a sweep, well
    // within the lease; the wait gives up, failing the test, at the lease plus a margin for this loaded machine).
    const reader = cluster().transport('JSON-RPC', 0);
    const ids = [...new Set(load.acks.map((a) => a.taskId))];
    const giveUpAt = Date.now() + LEASE_TTL_MS + 15_000;
    const final = new Map<string, Task>();
    while (final.size < ids.length) {
      for (const id of ids.filter((i) => !final.has(i))) {
        const task = await reader.unary('GetTask', { id });
        if (isSettled(task.status.state)) final.set(id, task);
      }
      if (final.size < ids.length && Date.now() > giveUpAt) {
        throw new Error(`${ids.length - final.size} acknowledged task(s) still unsettled ${LEASE_TTL_MS + 15_000} ms after the load stopped`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Each acknowledged message is in its task once.
    for (const ack of load.acks) expect(occurrences(final.get(ack.taskId)!, ack.messageId), `${ack.messageId} in ${ack.taskId}`).toBe(1);
    expect(await storedLogProblems(db.url, cluster().schema, ids)).toEqual([]);

    // Subscribers on replicas that lived through their whole subscription saw their task end.
    const survived = load.follows.filter((f) => !f.late && !kills.some((k) => k.replica === f.replica && k.at <= f.ended && k.back >= f.started));
    const unfinished = survived.filter((f) => f.error !== undefined || f.last === undefined || !isTerminal(f.last));
    expect(unfinished).toEqual([]);

    const orphans = [...final.values()].filter((t) => t.status.message?.parts.some((p) => 'text' in p && p.text === PROCESS_STOPPED));
    // The long tasks on the killed replicas were settled by another one, saying the agent's process stopped,
    // and their subscribers on surviving replicas saw that end.
    expect(planted.filter((id) => !orphans.some((o) => o.id === id))).toEqual([]);
    const plantedFollows = survived.filter((f) => planted.includes(f.taskId));
    expect(plantedFollows.length).toBeGreaterThan(0);
    for (const f of plantedFollows) expect(f.last).toBe('TASK_STATE_FAILED');
    const restartMs = kills.map((k) => k.back - k.at);
    const figures = { kills: kills.length, slowestRestartMs: Math.max(...restartMs), acknowledged: load.acks.length, tasks: ids.length, followed: load.follows.length, followedOnSurvivors: survived.length, settledAfterTheirReplicaDied: orphans.length };
    process.stdout.write(`chaos figures: ${JSON.stringify(figures)}\n`);
  }, 300_000);

  it('SIGTERM drains a replica: a run that ends within the grace period completes, a longer one fails saying the server shut down, and a stream on it resumes on another replica', async () => {
    const [victim, other] = [1, 2];
    const onVictim = cluster().transport('JSON-RPC', victim);
    const sendThere = async (text: string): Promise<Task> => {
      const result = await onVictim.unary('SendMessage', { message: message(text), configuration: { returnImmediately: true } });
      if (!('task' in result)) throw new Error('expected a task');
      return result.task;
    };
    const short = await sendThere('slow 10 50');
    const long = await sendThere('slow 1000 20');
    // A client following the long task on the victim; its resumption goes to the other replica (the balancer's next pick).
    const client = roundRobin([onVictim, cluster().transport('HTTP+JSON', other)]);
    const events: StreamEvent[] = [];
    const resumed: string[] = [];
    const logger = { warn: (_fields: unknown, text?: string) => void resumed.push(text ?? ''), error: () => {} };
    let following!: () => void;
    const first = new Promise<void>((resolve) => (following = resolve));
    const followed = (async () => {
      for await (const event of resumableStream(client, 'SubscribeToTask', { id: long.id }, { backoff: { initialMs: 10, maxDelayMs: 100 }, logger })) {
        events.push(event);
        following();
      }
    })();
    await first;
    expect(await cluster().stop(victim)).toBe(0);
    await followed;
    const reader = cluster().transport('JSON-RPC', other);
    expect((await reader.unary('GetTask', { id: short.id })).status.state).toBe('TASK_STATE_COMPLETED');
    const ended = await reader.unary('GetTask', { id: long.id });
    expect(ended.status.state).toBe('TASK_STATE_FAILED');
    expect(ended.status.message?.parts).toEqual([{ text: expect.stringMatching(/shut down/) }]);
    expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_FAILED');
    expect(resumed.some((line) => line.includes('resuming'))).toBe(true);
    const sequences = events.map((e) => e.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    await cluster().restart(victim);
  }, 120_000);
});
