import { randomBytes } from 'node:crypto';
import type { TaskState } from '@taskwire/core';
import { createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres, taskCountMismatches } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finalTasks, send, unexpected, until } from './support/fault-kit.js';
import { previousRelease, type Release } from './support/previous-release.js';
import { startReplica, stopReplica, streamTask, type ReleaseReplica } from './support/release-replicas.js';
import { PREVIOUS_RELEASE } from './support/releases.js';

const ARGS = ['--lease-ttl-ms', '2000'];
const THIS_RELEASE = 'this release';

describePostgres(`task counts while the previous release (${PREVIOUS_RELEASE}) writes the same tasks`, (db) => {
  let previous: Release;
  const replicas: ReleaseReplica[] = [];
  const schema = `tw_counts_${randomBytes(5).toString('hex')}`;
  const S = `"${schema}"`;
  const start = async (older: Release | undefined, migrate: boolean) => {
    const replica = await startReplica(older?.commit ?? THIS_RELEASE, older?.root, db.url, schema, [...(migrate ? ['--migrate'] : []), ...ARGS]);
    replicas.push(replica);
    return replica;
  };

  beforeAll(() => {
    previous = previousRelease(PREVIOUS_RELEASE);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.kill().then(() => r.transport.close().catch(() => undefined))));
    await db.drop(schema);
  });

  it('counts installed under load and kept by both releases at once: no task fails, the counts equal the rows in every snapshot', async () => {
    const serving: ReleaseReplica[] = [await start(previous, true), await start(previous, false)];
    const acked = new Map<string, string>();
    const ackedOn = (release: string) => [...acked.values()].filter((r) => r === release).length;
    const deleted = new Set<string>();
    let deletedByPrevious = 0;
    let stopping = false;
    // Streams, blocking echoes, and interrupted tasks continued on another replica (often of the other release).
    const clients = Array.from({ length: 6 }, async (_, w) => {
      for (let i = w; !stopping; i++) {
        const up = serving.filter((r) => r.up);
        const [here, there] = [up[i % up.length]!, up[(i + 1) % up.length]!];
        if (w % 3 === 0) {
          await streamTask(here.transport, 'slow 4 15', { acknowledged: (id) => acked.set(id, here.release) });
        } else if (w % 3 === 1) {
          acked.set((await send(here.transport, `echo ${i}`, { blocking: true })).id, here.release);
        } else {
          const asked = await send(here.transport, 'quote', { blocking: true });
          acked.set(asked.id, here.release);
          await send(there.transport, 'insta', { taskId: asked.id, blocking: true });
        }
      }
    });
    const served = (release: string, more: number) => {
      const from = ackedOn(release);
      return until(() => ackedOn(release) >= from + more, `${more} tasks acknowledged by ${release}`, 60_000);
    };
    await served(PREVIOUS_RELEASE, 12);
    // This release migrates (the counts' triggers, then their backfill) while the previous release's replicas write.
    serving.push(await start(undefined, true));
    // From now on the counts must equal the rows in every snapshot, and a store of this release deletes finished tasks.
    const mismatches: unknown[] = [];
    let checks = 0;
    const checking = (async () => {
      while (!stopping) {
        mismatches.push(...(await taskCountMismatches(db.pool, schema)));
        checks++;
      }
    })();
    const store = await createPostgresTaskStore({ connectionString: db.url, schema, poolSize: 2 });
    // Deletes by both releases at once (of tasks finished a while ago, whose clients are done with them): this one's store,
    // and the previous release's in processes of their own.
    const completed = async () =>
      (await db.pool.query<{ id: string }>(`SELECT id FROM ${S}.tasks WHERE state = 'TASK_STATE_COMPLETED' AND updated_at < now() - interval '1 second' ORDER BY random() LIMIT 1`)).rows[0]?.id;
    const deleting = [
      (async () => {
        while (!stopping) {
          const id = await completed();
          if (id !== undefined && (await store.delete(id))) deleted.add(id);
          await store.compactCounts();
        }
      })(),
      (async () => {
        while (!stopping) {
          const id = await completed();
          if (id === undefined || !(await previous.probe<boolean>(db.url, schema, 'delete', id))) continue;
          deleted.add(id);
          deletedByPrevious++;
        }
      })(),
    ];
    await served(THIS_RELEASE, 12);
    serving.push(await start(undefined, false));
    await Promise.all([served(THIS_RELEASE, 16), served(PREVIOUS_RELEASE, 16)]);
    stopping = true;
    await Promise.all([...clients, checking, ...deleting]);

    const kept = [...acked.keys()].filter((id) => !deleted.has(id));
    const final = await finalTasks(serving[2]!.transport, kept, 30_000);
    expect(unexpected(final, 'TASK_STATE_COMPLETED')).toEqual([]);
    expect(checks).toBeGreaterThan(0);
    expect(deletedByPrevious).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
    await store.compactCounts();
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
    // totalSize on both releases (the previous one counts rows, this one reads the counts) is what the rows say.
    const rows = async (state?: TaskState) => Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.tasks${state ? ' WHERE state = $1' : ''}`, state ? [state] : [])).rows[0].n);
    for (const replica of serving) {
      for (const status of [undefined, 'TASK_STATE_COMPLETED', 'TASK_STATE_WORKING'] as const) {
        const { totalSize } = await replica.transport.unary('ListTasks', { pageSize: 1, ...(status && { status }) });
        expect({ release: replica.release, status, totalSize }).toEqual({ release: replica.release, status, totalSize: await rows(status) });
      }
    }
    process.stdout.write(`counts with mixed releases: ${acked.size} tasks (${ackedOn(PREVIOUS_RELEASE)} on ${PREVIOUS_RELEASE}), ${deleted.size} deleted (${deletedByPrevious} by ${PREVIOUS_RELEASE}), ${checks} snapshot checks\n`);
    await store.close();
    for (const replica of serving.splice(0)) expect(await stopReplica(replica)).toBe(0);
    for (const replica of replicas) {
      expect(replica.process.stderr()).not.toMatch(/^error:/m);
      expect(replica.process.stderr()).not.toMatch(/deadlock/i);
    }
  }, 180_000);
});
