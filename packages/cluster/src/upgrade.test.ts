import { randomBytes } from 'node:crypto';
import { isTerminal, replayEvents, type StreamResponse, type Task } from '@taskwire/core';
import { createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finalTasks, send, until } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';
import { previousRelease, type Release } from './support/previous-release.js';
import { listAll, startReplica, stopReplica, streamTask, type ReleaseReplica } from './support/release-replicas.js';
import { BEFORE_SNAPSHOT_LOGS, PREVIOUS_RELEASE } from './support/releases.js';

/** Short leases: a task of a replica stopped mid-run is taken over quickly. */
const ARGS = ['--lease-ttl-ms', '2000'];
const THIS_RELEASE = 'this release';

const outputParts = (task: Task | undefined) => task?.artifacts?.find((a) => a.name === 'output' || a.artifactId.includes('output'))?.parts.length ?? 0;

describePostgres(`a mixed cluster: this release and the previous one (${PREVIOUS_RELEASE}) as processes on one schema`, (db) => {
  let previous: Release;
  let beforeSnapshots: Release;
  const replicas: ReleaseReplica[] = [];
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = `tw_upgrade_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };
  const start = async (release: 'previous' | 'before snapshots' | 'this', schema: string, migrate: boolean) => {
    const older = release === 'previous' ? previous : release === 'before snapshots' ? beforeSnapshots : undefined;
    const replica = await startReplica(older?.commit ?? THIS_RELEASE, older?.root, db.url, schema, [...(migrate ? ['--migrate'] : []), ...ARGS]);
    replicas.push(replica);
    return replica;
  };

  beforeAll(() => {
    previous = previousRelease(PREVIOUS_RELEASE);
    beforeSnapshots = previousRelease(BEFORE_SNAPSHOT_LOGS);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.kill().then(() => r.transport.close().catch(() => undefined))));
    await Promise.all(schemas.map((schema) => db.drop(schema)));
  });

  it('streaming, continuing, reading and sweeping the same tasks, in both directions: nothing lost or unreadable', async () => {
    const schema = newSchema();
    // The previous release creates the schema; this one migrates it further while the other serves.
    const old = await start('previous', schema, true);
    const now = await start('this', schema, true);
    const sweeper = await createPostgresTaskStore({ connectionString: db.url, schema, retention: { maxEventAgeMs: 1 } });
    const ids: string[] = [];
    for (const [writer, reader] of [
      [old, now],
      [now, old],
    ] as const) {
      // Streaming on one release, read on the other (while the age sweeps of both run).
      const streamed = await streamTask(writer.transport, 'slow 12 20', { acknowledged: (id) => ids.push(id) });
      expect(streamed.last).toBe('TASK_STATE_COMPLETED');
      for (const side of [writer, reader]) expect(outputParts(await side.transport.unary('GetTask', { id: streamed.taskId }))).toBe(12);
      // Continuing on the other release.
      const asked = await send(writer.transport, 'quote', { blocking: true });
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const answered = await send(reader.transport, 'insta', { taskId: asked.id, blocking: true });
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.artifacts?.map((a) => a.name)).toEqual(['quote']);
      ids.push(asked.id);
    }
    // Sweeping while both releases stream: each release's age sweep (every event older than 1 ms) runs over the other's tasks.
    const sweeping = { stop: false, rounds: 0 };
    const sweeps = (async () => {
      while (!sweeping.stop) {
        await Promise.all([previous.probe(db.url, schema, 'sweep', '1'), sweeper.pruneEvents()]);
        sweeping.rounds++;
      }
    })();
    const [onOld, onNew] = await Promise.all(
      [old, now].map((side) =>
        streamTask(side.transport, 'slow 40 60', {
          acknowledged: (id) => ids.push(id),
        }),
      ),
    );
    await until(() => sweeping.rounds >= 1, 'a sweep of both releases', 30_000);
    sweeping.stop = true;
    await sweeps;
    for (const streamed of [onOld!, onNew!]) {
      expect(streamed.last).toBe('TASK_STATE_COMPLETED');
      for (const side of [old, now]) expect(outputParts(await side.transport.unary('GetTask', { id: streamed.taskId }))).toBe(40);
    }
    // Reading: every ListTasks page on both releases holds every task, the same on both.
    const [listedOld, listedNew] = await Promise.all([listAll(old.transport), listAll(now.transport)]);
    expect(listedOld.map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(listedNew).toEqual(listedOld);
    await sweeper.close();
    expect(old.process.stderr()).not.toMatch(/^error:/m);
    expect(now.process.stderr()).not.toMatch(/^error:/m);
  }, 120_000);

  it('a rolling upgrade under streaming load: 2 replicas of the previous release replaced one by one; no acknowledged task lost, every task readable', async () => {
    const schema = newSchema();
    const serving: ReleaseReplica[] = [await start('previous', schema, true)];
    serving.push(await start('previous', schema, false));
    const acked = new Set<string>();
    const ackedOn = new Map<string, number>();
    let stopping = false;
    const clients = Array.from({ length: 4 }, async (_, w) => {
      for (let i = w; !stopping; i++) {
        const up = serving.filter((r) => r.up);
        const replica = up[i % up.length]!;
        await streamTask(replica.transport, 'slow 6 30', {
          acknowledged: (id) => {
            acked.add(id);
            ackedOn.set(replica.release, (ackedOn.get(replica.release) ?? 0) + 1);
          },
        }).catch(() => undefined); // the replica stopped under the call: what it acknowledged is counted above
      }
    });
    const served = (release: string, more: number) => {
      const from = ackedOn.get(release) ?? 0;
      return until(() => (ackedOn.get(release) ?? 0) >= from + more, `${more} tasks acknowledged by ${release}`, 30_000);
    };
    await served(PREVIOUS_RELEASE, 8);
    for (const index of [0, 1]) {
      const leaving = serving[index]!;
      const stopped = stopReplica(leaving);
      // The first new replica migrates the schema while the other old one serves on it.
      serving[index] = await start('this', schema, index === 0);
      expect(await stopped).toBe(0);
      await served(THIS_RELEASE, 8);
    }
    stopping = true;
    await Promise.all(clients);
    const ids = [...acked];
    const reader = serving[0]!.transport;
    const final = await finalTasks(reader, ids, 30_000);
    expect(final.size).toBe(ids.length);
    // Readable everywhere: GetTask on each new replica, and every ListTasks page.
    for (const replica of serving) for (const id of ids) expect((await replica.transport.unary('GetTask', { id, historyLength: 0 })).id).toBe(id);
    const listed = new Set((await listAll(reader)).map((t) => t.id));
    expect(ids.filter((id) => !listed.has(id))).toEqual([]);
    expect(await storedLogProblems(db.url, schema, ids)).toEqual([]);
    const states = [...final.values()].reduce<Record<string, number>>((count, t) => ({ ...count, [t.status.state]: (count[t.status.state] ?? 0) + 1 }), {});
    process.stdout.write(`rolling upgrade: ${ids.length} tasks acknowledged (${JSON.stringify(Object.fromEntries(ackedOn))}), final states ${JSON.stringify(states)}\n`);
    // Tasks of a replica that stopped cleanly finished within its drain: none failed.
    expect(states).toEqual({ TASK_STATE_COMPLETED: ids.length });
  }, 120_000);

  it('before `contract`, a task of this release that commits nothing for longer than the lease keeps it: the previous release (no heartbeats) never takes it over', async () => {
    const schema = newSchema();
    const old = await start('previous', schema, true);
    const now = await start('this', schema, true);
    // One chunk after 5 s: 2.5 leases with no commit, while the previous release sweeps by the rows' expiry alone.
    const streamed = await streamTask(now.transport, 'slow 1 5000');
    expect(streamed.last).toBe('TASK_STATE_COMPLETED');
    const { rows } = await db.pool.query<{ lease_takeovers: number }>(`SELECT lease_takeovers FROM "${schema}".tasks WHERE id = $1`, [streamed.taskId]);
    expect(rows).toEqual([{ lease_takeovers: 0 }]);
    expect(outputParts(await old.transport.unary('GetTask', { id: streamed.taskId }))).toBe(1);
  }, 60_000);

  it(`a release before snapshot logs (${BEFORE_SNAPSHOT_LOGS}) takes over a task this release was streaming when it died: every chunk logged stays`, async () => {
    const schema = newSchema();
    const old = await start('before snapshots', schema, true);
    const now = await start('this', schema, true);
    let chunks = 0;
    let taskId = '';
    const streaming = streamTask(now.transport, 'slow 200 30', { acknowledged: (id) => (taskId = id) }).catch(() => undefined);
    // Until a few chunks are stored (or the task ended: then the assertions below say how).
    await until(
      async () => {
        const task = taskId ? await now.transport.unary('GetTask', { id: taskId }) : undefined;
        chunks = outputParts(task);
        return chunks >= 5 || (task !== undefined && isTerminal(task.status.state));
      },
      'a few chunks stored',
      30_000,
    );
    await now.process.kill();
    await streaming;
    // The older release takes the task over once the lease expires and settles it, from the JSON it reads.
    const [settled] = (await finalTasks(old.transport, [taskId], 30_000)).values();
    const S = `"${schema}"`;
    const { rows } = await db.pool.query<{ event: string }>(`SELECT event FROM ${S}.task_events WHERE task_id = $1 ORDER BY sequence`, [taskId]);
    const [first, ...rest] = rows.map((row) => JSON.parse(row.event) as StreamResponse);
    const logged = replayEvents((first as { task: Task }).task, rest);
    expect(outputParts(logged)).toBeGreaterThanOrEqual(chunks);
    expect(outputParts(settled)).toBe(outputParts(logged));
    const restarted = await start('this', schema, false);
    expect((await restarted.transport.unary('GetTask', { id: taskId })).artifacts).toEqual(logged.artifacts);
    expect(await storedLogProblems(db.url, schema, [taskId])).toEqual([]);
  }, 120_000);
});
