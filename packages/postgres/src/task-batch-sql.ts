import type { LeaseCondition } from '@taskwire/core';
import { TERMINAL_STATE_LIST } from './migrations.js';
import { clusterParameters, leaseSql } from './task-sql.js';

/** One update of a batch: the scalar columns, the task JSON (null: the commit only appends), its events, the version it read. */
export interface BatchedUpdate {
  readonly id: string;
  readonly owner: string;
  readonly contextId: string;
  readonly state: string;
  readonly statusKey: string;
  readonly task: string | null;
  readonly events: readonly string[];
  readonly expectedVersion: number;
  /** A replica's commit: the lease it keeps (see `CommitRequest.lease`). */
  readonly lease?: LeaseCondition | undefined;
}

/**
 * The statement that stores a batch of updates of distinct tasks at once
 * (one round trip, one transaction), each under the conditions of the
 * single update in `task-sql.ts`: the expected version, the same owner, not
 * terminal. A refused update changes nothing and returns no row; the others
 * are stored. `written` updates the rows whose commit carries the task JSON
 * (making it current), `appended` the rows whose commit only appends
 * (leaving their JSON as the snapshot, `snapshot_sequence` marking it);
 * `logged` numbers each commit's events after its row's previous
 * `last_sequence`. With a retention bound (`bounded`), only the newest
 * events within it are kept. Returns `i` (the 1-based index of the update
 * in the batch), `version` and `last_sequence` per stored update. Its
 * values come from {@link batchValues}: the task JSONs (`$6`, null where a
 * commit only appends) and the events (`$9`) each as one JSON array, whose
 * elements PostgreSQL's `json` type hands back byte for byte.
 *
 * With `leases` (replicas sharing the tables), each row also carries its own
 * lease condition and keeps its task's lease exactly as the single update
 * of a replica does (`leaseSql`): a hold whose lease is no longer its
 * writer's is refused alone, a claim draws its own epoch (returned as
 * `lease_epoch`).
 *
 * The statement is prepared, so PostgreSQL soon plans it once for every
 * batch, guessing 100 rows per unnested array. `written` selects its rows
 * with `json_typeof(c.task) = 'object'`, not `<> 'null'` (the same rows: a
 * task is an object): an equality is guessed to keep one row, as `appended`'s
 * is, so both reach their tasks through the primary key. With `<> 'null'`
 * the guess of 99 rows made a hash join over a scan of the whole tasks table
 * look cheaper while the table held a few thousand rows, and every batch
 * paid that scan (`commit-batch-plan.test.ts`).
 */
export function batchStatement(S: string, bounded: boolean, leases = false): string {
  const lease = leases
    ? leaseSql(S, { holder: 'c.holder', epoch: 'c.epoch', claim: 'c.claim', ttl: 'c.ttl', ifFree: 'c.if_free', state: 'c.state' })
    : undefined;
  const set = `context_id = c.context_id, state = c.state, status_key = c.status_key, version = t.version + 1,
        last_sequence = t.last_sequence + c.n, updated_at = now()${lease ? `, ${lease.updated}` : ''}`;
  const where = `t.id = c.id AND t.version = c.expected AND t.owner = c.owner AND t.state NOT IN ${TERMINAL_STATE_LIST}${lease ? ` AND ${lease.held}` : ''}`;
  const returning = `RETURNING c.i, t.id, t.version, t.last_sequence, c.n${lease ? ', t.lease_epoch' : ''}`;
  const leaseColumns = lease ? ', unnest($12::text[]), unnest($13::integer[]), unnest($14::boolean[]), unnest($15::double precision[]), unnest($16::boolean[])' : '';
  const bound = `$${lease ? 17 : 12}::bigint`;
  return `WITH c AS (
      SELECT * FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),
          json_array_elements($6::json), unnest($7::integer[]), unnest($8::integer[])${leaseColumns})
        WITH ORDINALITY AS c(id, owner, context_id, state, status_key, task, expected, n${lease ? ', holder, epoch, claim, ttl, if_free' : ''}, i)
    ), written AS (
      UPDATE ${S}.tasks t SET ${set}, task = c.task::text, snapshot_sequence = NULL
      FROM c WHERE json_typeof(c.task) = 'object' AND ${where}
      ${returning}
    ), appended AS (
      UPDATE ${S}.tasks t SET ${set}, snapshot_sequence = COALESCE(t.snapshot_sequence, t.last_sequence)
      FROM c WHERE json_typeof(c.task) = 'null' AND ${where}
      ${returning}
    ), updated AS (
      SELECT * FROM written UNION ALL SELECT * FROM appended
    ), logged AS (
      INSERT INTO ${S}.task_events (task_id, sequence, event)
      SELECT u.id, u.last_sequence - u.n + e.k, e.event::text
      FROM updated u JOIN ROWS FROM (json_array_elements($9::json), unnest($10::integer[]), unnest($11::integer[])) AS e(event, i, k) ON e.i = u.i${bounded ? ` WHERE e.k > u.n - ${bound}` : ''}
    )${
      bounded
        ? `, pruned AS (
      DELETE FROM ${S}.task_events d USING updated u WHERE d.task_id = u.id AND d.sequence <= u.last_sequence - ${bound}
    )`
        : ''
    }
    SELECT i, version, last_sequence${lease ? ', lease_epoch' : ''} FROM updated`;
}

/**
 * The values of {@link batchStatement} for `updates` (and the retention
 * `bound`, when the statement is `bounded`); with `leases`, each update's
 * lease columns too.
 */
export function batchValues(updates: readonly BatchedUpdate[], bound: number | undefined, leases = false): unknown[] {
  const events: string[] = [];
  const owners: number[] = [];
  const positions: number[] = [];
  updates.forEach((update, i) => {
    update.events.forEach((event, k) => {
      events.push(event);
      owners.push(i + 1);
      positions.push(k + 1);
    });
  });
  // The JSON texts go joined into one JSON array (PostgreSQL hands each element's text back byte for byte),
  // not as text[]: an array literal escapes every quote of every event on the way in and unescapes it on the way back.
  const tasks = `[${updates.map((u) => u.task ?? 'null').join(',')}]`;
  const column = <T>(pick: (update: BatchedUpdate) => T) => updates.map(pick);
  const values: unknown[] = [
    column((u) => u.id),
    column((u) => u.owner),
    column((u) => u.contextId),
    column((u) => u.state),
    column((u) => u.statusKey),
    tasks,
    column((u) => u.expectedVersion),
    column((u) => u.events.length),
    `[${events.join(',')}]`,
    owners,
    positions,
  ];
  if (leases) {
    const terms = updates.map((u) => clusterParameters(u.lease));
    for (let k = 0; k < 5; k++) values.push(terms.map((t) => t[k]));
  }
  if (bound !== undefined) values.push(bound);
  return values;
}
