import { randomBytes } from 'node:crypto';
import { A2AError, reduce, stateOf, TAKE_OVER_SEQUENCE_GAP, type StreamEvent, type Task, type Transport } from '@taskwire/core';
import { migrate } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finalTasks, send, until } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';
import { previousRelease, type Release } from './support/previous-release.js';
import { listAll, startReplica, streamTask, type ReleaseReplica } from './support/release-replicas.js';
import { PREVIOUS_RELEASE } from './support/releases.js';

/** Short leases: a task of a killed replica is taken over within seconds (long enough that a live one on a loaded machine keeps its task). */
const LEASE = ['--lease-ttl-ms', '4000'];
const THIS_RELEASE = 'this release';

const outputParts = (task: Task | undefined) => task?.artifacts?.find((a) => a.name === 'output')?.parts.length ?? 0;

/** Every item of a stream, or the A2A error code it failed with. */
async function read(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[] | string> {
  const got: StreamEvent[] = [];
  try {
    for await (const event of events) got.push(event);
  } catch (error) {
    if (error instanceof A2AError) return error.kind;
    throw error;
  }
  return got;
}

/** SubscribeToTask `id` over `transport` from `afterSequence`, read to its end (see {@link read}). */
const resume = (transport: Transport, id: string, afterSequence: number) => read(transport.stream('SubscribeToTask', { id, afterSequence }, { timeoutMs: 60_000 }));

/** SubscribeToTask `id` from `afterSequence`, once its first item came (the server follows the task): the whole stream, read to its end. */
async function following(transport: Transport, id: string, afterSequence: number): Promise<{ events: Promise<StreamEvent[]> }> {
  const stream = transport.stream('SubscribeToTask', { id, afterSequence }, { timeoutMs: 60_000 })[Symbol.asyncIterator]();
  const first = await stream.next();
  if (first.done) throw new Error(`the resume from ${afterSequence} ended at once`);
  const rest = async () => {
    const events = [first.value];
    for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
    return events;
  };
  return { events: rest() };
}

/**
 * The status and artifacts a client holds after reading `events` (the whole task `held` it had, when the stream
 * carries none): the last whole task in them, then the later status updates and artifact chunks on it.
 */
function heldTask(events: StreamEvent[], held?: Task): Pick<Task, 'status' | 'artifacts'> {
  const at = events.map((e) => 'task' in e.response).lastIndexOf(true);
  let task = at < 0 ? held : (events[at]!.response as { task: Task }).task;
  if (task === undefined) throw new Error('no task in the stream, and none held before it');
  for (const { response } of events.slice(at + 1)) {
    if ('statusUpdate' in response) task = { ...task, status: response.statusUpdate.status };
    if (!('artifactUpdate' in response)) continue;
    const next = reduce(task, response);
    if (!next.ok) throw new Error(next.error.message);
    task = next.task;
  }
  return { status: task.status, artifacts: task.artifacts };
}

/** True when `log` is `before` followed only by the numbers right after its end (a commit numbered nothing else). */
const continuedRightAfter = (before: number[], log: number[]) =>
  log.length > before.length && log.every((s, i) => (i < before.length ? s === before[i] : s === before.at(-1)! + 1 + i - before.length));

/** The problems of a stream a client read: numbers not rising, or any inside `gap` (low exclusive, high inclusive). */
function streamProblems(events: StreamEvent[], gap: readonly [number, number]): string[] {
  const problems: string[] = [];
  events.forEach((e, i) => {
    if (i > 0 && e.sequence <= events[i - 1]!.sequence) problems.push(`sequence ${e.sequence} after ${events[i - 1]!.sequence}`);
    if (e.sequence > gap[0] && e.sequence <= gap[1]) problems.push(`sequence ${e.sequence} inside the gap (${gap[0]}, ${gap[1]}]`);
  });
  return problems;
}

describePostgres(`the previous release (${PREVIOUS_RELEASE}) on logs this release left a gap in, as processes on one schema`, (db) => {
  let previous: Release;
  const replicas: ReleaseReplica[] = [];
  const start = async (release: 'previous' | 'this', schema: string, args: string[] = []) => {
    const older = release === 'previous' ? previous : undefined;
    const replica = await startReplica(older?.commit ?? THIS_RELEASE, older?.root, db.url, schema, [...LEASE, ...args]);
    replicas.push(replica);
    return replica;
  };
  const schemas: string[] = [];
  /**
   * A schema the previous release made, then migrated by this one (as in a rolling upgrade): never a new schema of
   * this release, which records the `lease-heartbeats` step at once (the previous release has no heartbeats).
   */
  const upgradedSchema = async () => {
    const schema = `tw_gapup_${randomBytes(5).toString('hex')}`;
    schemas.push(schema);
    await previous.probe(db.url, schema, 'migrate');
    await migrate({ pool: db.pool, schema });
    return schema;
  };
  /** The sequence numbers of `id`'s stored log, in order. */
  const sequences = async (schema: string, id: string) =>
    (await db.pool.query<{ sequence: string }>(`SELECT sequence FROM "${schema}".task_events WHERE task_id = $1 ORDER BY sequence`, [id])).rows.map((r) => Number(r.sequence));
  const lastSequence = async (schema: string, id: string) =>
    Number((await db.pool.query<{ last_sequence: string }>(`SELECT last_sequence FROM "${schema}".tasks WHERE id = $1`, [id])).rows[0]!.last_sequence);

  /** The whole task logged at `sequence` of `id`'s log (what a client that resumed from there holds). */
  const loggedTask = async (schema: string, id: string, sequence: number) =>
    (JSON.parse((await db.pool.query<{ event: string }>(`SELECT event FROM "${schema}".task_events WHERE task_id = $1 AND sequence = $2`, [id, sequence])).rows[0]!.event) as { task: Task }).task;

  beforeAll(() => {
    previous = previousRelease(PREVIOUS_RELEASE);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.process.kill().then(() => r.transport.close().catch(() => undefined))));
    await Promise.all(schemas.map((schema) => db.drop(schema)));
  });

  it('after lost commits: an input-required task this release continued past the lost numbers is read, resumed, answered and canceled by the previous release', async () => {
    const schema = await upgradedSchema();
    const S = `"${schema}"`;
    const now = await start('this', schema);
    const gapped: { id: string; kept: number; lost: number }[] = [];
    for (let i = 0; i < 2; i++) {
      const asked = await send(now.transport, 'quote', { blocking: true });
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const kept = await lastSequence(schema, asked.id);
      await db.pool.query(`CREATE TABLE IF NOT EXISTS ${S}.before_failover AS SELECT * FROM ${S}.tasks WITH NO DATA`);
      await db.pool.query(`INSERT INTO ${S}.before_failover SELECT * FROM ${S}.tasks WHERE id = $1`, [asked.id]);
      // Answered on this release: the task completes under numbers its clients see ...
      expect((await send(now.transport, 'insta', { taskId: asked.id, blocking: true })).status.state).toBe('TASK_STATE_COMPLETED');
      const lost = await lastSequence(schema, asked.id);
      // ... which a failover to a standby that had not replicated them loses: the row and log as they were before the answer.
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`DELETE FROM ${S}.tasks WHERE id = $1`, [asked.id]);
        await client.query(`DELETE FROM ${S}.task_events WHERE task_id = $1 AND sequence > $2`, [asked.id, kept]);
        await client.query(`INSERT INTO ${S}.tasks SELECT * FROM ${S}.before_failover WHERE id = $1`, [asked.id]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      // Answered again on this release (an answer it cannot place: asked again). It commits after the numbers it
      // published, the stored task first: the log has a gap where the lost answer was.
      const again = await send(now.transport, 'hello', { taskId: asked.id, blocking: true });
      expect(again.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const log = await sequences(schema, asked.id);
      expect(log.filter((s) => s > kept && s <= lost)).toEqual([]);
      expect(log).toContain(lost + 1);
      gapped.push({ id: asked.id, kept, lost });
    }
    process.stdout.write(`lost-commit gaps: ${JSON.stringify(await Promise.all(gapped.map(async (g) => ({ ...g, log: await sequences(schema, g.id) }))))}\n`);

    const old = await start('previous', schema);
    const [answered, canceled] = gapped as [(typeof gapped)[0], (typeof gapped)[0]];
    // Read: GetTask and ListTasks on the previous release give what this release gives.
    for (const { id } of gapped) {
      const here = await now.transport.unary('GetTask', { id });
      expect(here.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(await old.transport.unary('GetTask', { id })).toEqual(here);
    }
    const [listedOld, listedNew] = await Promise.all([listAll(old.transport), listAll(now.transport)]);
    expect(listedOld).toEqual(listedNew);
    expect(listedOld.map((t) => t.id).sort()).toEqual(gapped.map((g) => g.id).sort());

    // Resumed on the previous release from before, inside and after the gap; answered there while they follow it.
    const { id, kept, lost } = answered;
    const after = await sequences(schema, id);
    const atGapEnd = await loggedTask(schema, id, lost + 1);
    const points = { before: kept - 1, atGap: kept, inGap: kept + 1, lastLost: lost, afterGap: lost + 1 };
    const streams: Record<string, Promise<StreamEvent[]>> = {};
    for (const [name, at] of Object.entries(points)) streams[name] = (await following(old.transport, id, at)).events;
    const done = await send(old.transport, 'pinterest', { taskId: id, blocking: true });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts?.map((a) => a.name)).toEqual(['quote']);
    const final = await now.transport.unary('GetTask', { id });
    expect(await old.transport.unary('GetTask', { id })).toEqual(final);
    for (const [name, pending] of Object.entries(streams)) {
      const got = await pending;
      expect(streamProblems(got, [kept, lost]), name).toEqual([]);
      expect(stateOf(got.at(-1)!.response), name).toBe('TASK_STATE_COMPLETED');
      expect(got.at(-1)!.sequence, name).toBe(await lastSequence(schema, id));
      expect(heldTask(got, atGapEnd), name).toEqual({ status: final.status, artifacts: final.artifacts });
    }
    // The previous release numbered its commits right after the log's end: nothing reused, nothing lost.
    expect(continuedRightAfter(after, await sequences(schema, id))).toBe(true);

    // Canceled on the previous release, likewise.
    const beforeCancel = await sequences(schema, canceled.id);
    expect((await old.transport.unary('CancelTask', { id: canceled.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await now.transport.unary('GetTask', { id: canceled.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect(continuedRightAfter(beforeCancel, await sequences(schema, canceled.id))).toBe(true);
    expect(await storedLogProblems(db.url, schema, gapped.map((g) => g.id))).toEqual([]);
    expect(old.process.stderr()).not.toMatch(/^error:/m);
    expect(now.process.stderr()).not.toMatch(/^error:/m);
  }, 180_000);

  it('after a take-over from a gone holder: the previous release follows the task across the gap, takes it over in turn right after the log, and reads and resumes it as logged', async () => {
    const schema = await upgradedSchema();
    const dying = await start('this', schema);
    const taker = await start('this', schema, ['--rerun-orphans', '1']);
    let id = '';
    const streaming = streamTask(dying.transport, 'slow 600 100', { acknowledged: (taskId) => (id = taskId) }).catch(() => undefined);
    await until(async () => id !== '' && outputParts(await taker.transport.unary('GetTask', { id })) >= 3, 'a few chunks stored', 30_000);
    await dying.process.kill();
    await streaming;
    // The other replica of this release takes the task over once the lease expires, and runs it again after the gap.
    await until(async () => (await lastSequence(schema, id)) > TAKE_OVER_SEQUENCE_GAP + 3, 'the re-run past the gap', 60_000);
    const before = await sequences(schema, id);
    const kept = before.filter((s) => s < TAKE_OVER_SEQUENCE_GAP).at(-1)!;
    const resumed = kept + TAKE_OVER_SEQUENCE_GAP + 1;
    expect(before.slice(0, before.indexOf(kept) + 2)).toEqual([...Array.from({ length: kept }, (_, i) => i + 1), resumed]);

    // The previous release follows the running task, resumed from before, inside and after the gap.
    const atGapEnd = await loggedTask(schema, id, resumed);
    const old = await start('previous', schema);
    const points = { before: kept - 1, inGap: kept + 1, lastInGap: resumed - 1, afterGap: resumed };
    const streams: Record<string, Promise<StreamEvent[]>> = {};
    for (const [name, at] of Object.entries(points)) streams[name] = (await following(old.transport, id, at)).events;
    // The replica of this release goes too: the previous release takes the task over in turn and fails it.
    const ran = await lastSequence(schema, id);
    expect((await taker.transport.unary('GetTask', { id, historyLength: 0 })).status.state).toBe('TASK_STATE_WORKING');
    await taker.process.kill();
    const [failed] = (await finalTasks(old.transport, [id], 60_000)).values();
    expect(failed!.status.state).toBe('TASK_STATE_FAILED');
    const log = await sequences(schema, id);
    const end = log.at(-1)!;
    // Nothing reused, nothing lost: 1..kept, then every number from the gap's end on (the previous release's commit right after).
    expect(log).toEqual([...Array.from({ length: kept }, (_, i) => i + 1), ...Array.from({ length: end - resumed + 1 }, (_, i) => resumed + i)]);
    expect(end).toBeGreaterThan(ran);
    expect(await storedLogProblems(db.url, schema, [id])).toEqual([]);
    const reader = await start('this', schema);
    const final = await reader.transport.unary('GetTask', { id });
    expect(await old.transport.unary('GetTask', { id })).toEqual(final);
    expect(outputParts(final)).toBeGreaterThanOrEqual(3);
    for (const [name, pending] of Object.entries(streams)) {
      const got = await pending;
      expect(streamProblems(got, [kept, resumed - 1]), name).toEqual([]);
      expect(got.at(-1)!.sequence, name).toBe(end);
      expect(heldTask(got, atGapEnd), name).toEqual({ status: final.status, artifacts: final.artifacts });
    }
    const [listedOld, listedNew] = await Promise.all([listAll(old.transport), listAll(reader.transport)]);
    expect(listedOld).toEqual(listedNew);
    expect(listedOld.map((t) => t.id)).toEqual([id]);

    // Resumed once the task ended: from before the gap and after it, the logged events; from inside it, the previous
    // release answers UnsupportedOperation (nothing to subscribe to: read it with GetTask), as it does for a log retention
    // cut, where this release gives the task logged after the gap.
    const fromBefore = await resume(old.transport, id, kept - 1);
    expect(typeof fromBefore === 'string' ? fromBefore : heldTask(fromBefore)).toEqual({ status: final.status, artifacts: final.artifacts });
    expect(await resume(old.transport, id, kept + 1)).toBe('UnsupportedOperation');
    const fromInside = await resume(reader.transport, id, kept + 1);
    expect(typeof fromInside === 'string' ? fromInside : heldTask(fromInside)).toEqual({ status: final.status, artifacts: final.artifacts });
    const fromAfter = await resume(old.transport, id, resumed);
    expect(typeof fromAfter === 'string' ? fromAfter : fromAfter.map((e) => e.sequence)).toEqual(log.filter((s) => s > resumed));
    // The previous release's age sweep over it: both releases still read the task as it ended.
    expect(await previous.probe<number>(db.url, schema, 'sweep', '1')).toBeGreaterThan(0);
    expect(await old.transport.unary('GetTask', { id })).toEqual(final);
    expect(await reader.transport.unary('GetTask', { id })).toEqual(final);
    expect(old.process.stderr()).not.toMatch(/^error:/m);
  }, 240_000);
});
