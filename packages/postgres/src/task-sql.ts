import type { LeaseCondition } from '@taskwire/core';
import { nextEpoch } from './cluster/epoch-sequence-migration.js';
import { RUNNING_STATE_LIST, TERMINAL_STATE_LIST } from './migrations.js';

/**
 * The SQL of the task store, in one place. A commit is one statement (a
 * data-modifying CTE), so it is one round trip and one transaction:
 *
 * - `created` / `updated` changes the task's row only when the commit may
 *   (a create: no row with that id; an update: the stored version is the
 *   expected one, the owner is the same and the task is not terminal — a
 *   finished task's row never changes). A refused commit changes nothing and
 *   returns no row; the store then reads the row to say why.
 * - `logged` appends the events with the sequence numbers after the row's
 *   previous `last_sequence`. The row update serialises the writers of one
 *   task (a second writer waits on the row lock, then finds the version
 *   moved), so sequences are gap-free and in commit order.
 * - With a per-task retention bound, `pruned` drops the events that fell
 *   out of it, and the events of the commit that are already past it are
 *   not written at all.
 * - `append` is `update` without the task JSON: the row keeps its last
 *   snapshot and `snapshot_sequence` (the sequence it reflects) while
 *   events are logged after it; reads reduce those onto it (`pending`).
 *
 * `$1` id, `$2` owner, `$3` context id, `$4` state, `$5` status sort key,
 * `$6` task JSON, `$7` events (a text[] of JSON), `$8` the trace context
 * (creates) or the expected version (updates), `$9` the bound (with
 * retention).
 *
 * Statements made for replicas (`leases`) also keep the task's lease (see
 * {@link clusterParameters} for their last five parameters): a claim takes
 * the lease (its epoch a new one from the schema's epoch sequence, returned
 * as `lease_epoch`), a hold is
 * refused unless the row's lease is still the writer's, and any commit that
 * leaves the task terminal releases it (see `leaseSql`). (Commits are announced to the other
 * replicas after they resolve, not in the statement: see `CommitNotifier`.)
 */
export interface TaskStatements {
  readonly create: string;
  readonly update: string;
  /** An update that only appends (`CommitRequest.appendOnly`): `$6` null, the task JSON left as it is. */
  readonly append: string;
  /**
   * `update` with the events numbered from `$N` (the parameter after all the
   * others; see `TaskStore.commitFrom`), refused unless the row's
   * `last_sequence` is below it: the numbers in between stay unused.
   */
  readonly updateFrom: string;
  /** Why a commit was refused: the row's version, owner and state. */
  readonly probe: string;
  /** A task's row with `pending`: the events its JSON is behind (null when current). */
  readonly get: string;
  /** A task's row without its JSON: owner, version, last sequence and state (`TaskStore.head`). */
  readonly head: string;
  readonly ping: string;
  readonly readEvents: string;
  readonly unsettled: string;
  readonly deleteTask: string;
  readonly deleteEvents: string;
}

/**
 * The `pending` column of a row `t` of schema `S`'s tasks table: the events
 * (JSON texts, in order) logged after the snapshot its `task` JSON is, for a
 * read to reduce onto it (`replayEvents`); null when the JSON is current.
 */
export function pendingColumn(S: string): string {
  return `CASE WHEN t.snapshot_sequence IS NOT NULL THEN ARRAY(
      SELECT e.event FROM ${S}.task_events e WHERE e.task_id = t.id AND e.sequence > t.snapshot_sequence ORDER BY e.sequence
    ) END AS pending`;
}

/** The lease parameters of a replica's commit: holder, epoch (a hold's, or an `ifFree` claim's `heldEpoch`), claim, ttl ms, claim only if free. */
export function clusterParameters(lease: LeaseCondition | undefined): unknown[] {
  if (lease === undefined) return [null, null, false, null, false];
  // A claim `ifFree` passes its `heldEpoch` where a hold passes its epoch (a claim draws its own epoch).
  const epoch = lease.kind === 'hold' ? lease.epoch : lease.ifFree === true ? (lease.heldEpoch ?? null) : null;
  return [lease.holder, epoch, lease.kind === 'claim', lease.ttlMs, lease.kind === 'claim' && lease.ifFree === true];
}

/**
 * The task store's statements for schema `S` (quoted), keeping at most
 * `maxEvents` events per task when it is set; with `leases`, the
 * replicas' commits (see the comment above).
 */
export function taskStatements(S: string, maxEvents: number | undefined, leases = false): TaskStatements {
  const bounded = maxEvents !== undefined && maxEvents !== Infinity;
  // With a bound ($9), only the events within it are written.
  const keep = (bound: string) => (bounded ? ` WHERE e.n > cardinality($7::text[]) - ${bound}` : '');
  const n = bounded ? 10 : 9;
  const c = leases
    ? leaseSql(S, { holder: `$${n}::text`, epoch: `$${n + 1}::integer`, claim: `$${n + 2}::boolean`, ttl: `$${n + 3}::double precision`, ifFree: `$${n + 4}::boolean`, state: '$4' })
    : undefined;
  const epoch = c ? ', lease_epoch' : '';
  const create = `WITH created AS (
      INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, trace${c ? ', lease_holder, lease_epoch, lease_expires_at' : ''})
      VALUES ($1, $2, $3, $4, $5, 1, cardinality($7::text[]), $6, $8${c ? `, ${c.created}` : ''})
      ON CONFLICT (id) DO NOTHING
      RETURNING last_sequence${epoch}
    ), logged AS (
      INSERT INTO ${S}.task_events (task_id, sequence, event)
      SELECT $1, e.n, e.event FROM created, unnest($7::text[]) WITH ORDINALITY AS e(event, n)${keep('$9::bigint')}
    )
    SELECT 1 AS version, last_sequence${epoch} FROM created`;
  // A commit that writes the task makes its JSON current (snapshot_sequence null); one that only appends ($6 null)
  // leaves the JSON as it is, the snapshot now behind the events logged after it (see snapshot-migration.ts).
  // A commit from a given sequence (`updateFrom`) numbers its events from the parameter after all the others.
  const from = `$${c ? n + 5 : n}::bigint`;
  const update = (set: string, guard = '', gap = false) => `WITH updated AS (
      UPDATE ${S}.tasks
      SET context_id = $3, state = $4, status_key = $5, ${set}, version = version + 1,
          last_sequence = ${gap ? `${from} - 1` : 'last_sequence'} + cardinality($7::text[]), updated_at = now()${c ? `,
          ${c.updated}` : ''}
      WHERE id = $1 AND version = $8 AND owner = $2 AND state NOT IN ${TERMINAL_STATE_LIST}${c ? ` AND ${c.held}` : ''}${guard}${gap ? ` AND last_sequence < ${from}` : ''}
      RETURNING version, last_sequence${epoch}
    ), logged AS (
      INSERT INTO ${S}.task_events (task_id, sequence, event)
      SELECT $1, u.last_sequence - cardinality($7::text[]) + e.n, e.event
      FROM updated u, unnest($7::text[]) WITH ORDINALITY AS e(event, n)${keep('$9::bigint')}
    )${
      bounded
        ? `, pruned AS (
      DELETE FROM ${S}.task_events WHERE task_id = $1 AND sequence <= (SELECT last_sequence - $9::bigint FROM updated)
    )`
        : ''
    }
    SELECT version, last_sequence${epoch} FROM updated`;
  return {
    create,
    update: update('task = $6, snapshot_sequence = NULL'),
    append: update('snapshot_sequence = COALESCE(snapshot_sequence, last_sequence)', ' AND $6::text IS NULL'),
    updateFrom: update('task = $6, snapshot_sequence = NULL', '', true),
    ping: 'SELECT 1',
    probe: `SELECT version, owner, state, lease_holder, lease_epoch FROM ${S}.tasks WHERE id = $1`,
    get: `SELECT owner, version, last_sequence, trace, task, ${pendingColumn(S)} FROM ${S}.tasks t WHERE id = $1`,
    head: `SELECT owner, version, last_sequence, state FROM ${S}.tasks WHERE id = $1`,
    readEvents: `SELECT sequence, event FROM ${S}.task_events WHERE task_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
    unsettled: `SELECT id FROM ${S}.tasks WHERE state IN ${RUNNING_STATE_LIST}`,
    deleteTask: `DELETE FROM ${S}.tasks WHERE id = $1`,
    deleteEvents: `DELETE FROM ${S}.task_events WHERE task_id = $1`,
  };
}

/** The SQL expressions a commit's lease parts are written with (parameters, or the columns of a batch's rows). */
export interface LeaseTerms {
  readonly holder: string;
  readonly epoch: string;
  readonly claim: string;
  readonly ttl: string;
  readonly ifFree: string;
  /** The state the commit leaves the task in. */
  readonly state: string;
}

/**
 * The lease parts of a replica's commit, written with `terms` (see
 * {@link clusterParameters} for their values). A lease belongs to a run: a claim gives
 * it to the run the commit starts (epoch: the next of the schema's epoch
 * sequence, so epochs never repeat for a task id, even one deleted and
 * created again; the count of take-overs starts again), a hold is refused unless the
 * lease is still that run's, a commit that leaves the task terminal
 * releases it, and one that leaves it interrupted keeps it with its run
 * (which may go on by itself; interrupted tasks are never taken over).
 * The `updated` and `held` parts name the row's lease columns unqualified.
 * Model: `claimTransition` and `holdTransition` in packages/cluster-model
 * (its commit-tie test commits through the store against them).
 */
export function leaseSql(S: string, terms: LeaseTerms) {
  const { holder, epoch, claim, ttl, ifFree } = terms;
  const live = `${terms.state} NOT IN ${TERMINAL_STATE_LIST}`;
  const ended = `${terms.state} IN ${TERMINAL_STATE_LIST}`;
  const expiry = `now() + ${ttl} * interval '1 millisecond'`;
  return {
    // A claim draws its epoch (an `ifFree` one's epoch parameter is the epoch it must not take) and a new row has no lease to be free of.
    created: `CASE WHEN ${claim} AND ${live} THEN ${holder} END, CASE WHEN ${claim} AND ${live} AND (${epoch} IS NULL OR ${ifFree}) THEN ${nextEpoch(S)} END, CASE WHEN ${claim} AND ${live} THEN ${expiry} END`,
    updated: `lease_holder = CASE WHEN ${ended} THEN NULL WHEN ${claim} THEN ${holder} ELSE lease_holder END,
          lease_epoch = CASE WHEN ${ended} THEN NULL WHEN ${claim} THEN ${nextEpoch(S)} ELSE lease_epoch END,
          lease_expires_at = CASE WHEN ${ended} THEN NULL WHEN ${holder} IS NOT NULL THEN ${expiry} ELSE lease_expires_at END,
          lease_takeovers = CASE WHEN ${claim} THEN 0 ELSE lease_takeovers END`,
    // A claim `ifFree` takes no lease of another holder, live or expired: an expired one may be a paused run that
    // started already, and its task is the sweep's to settle (fail, or re-run as `rerunOrphans` allows), never a second run's.
    // Nor its holder's own lease at the epoch it last held (the epoch parameter: `heldEpoch`): that run started here and
    // stopped; nor one a take-over made (`lease_takeovers` > 0: a take-over whose answer was lost, its run may have
    // started elsewhere): the self-sweep (`takeOverOwn`) settles those. Only a claim whose answer was lost is taken.
    // Model: `claimTransition` with `free-or-mine` and `heldEpoch`.
    held: `(CASE WHEN ${claim} THEN NOT ${ifFree} OR lease_holder IS NULL OR (lease_holder = ${holder} AND lease_epoch IS DISTINCT FROM ${epoch} AND lease_takeovers = 0)
          ELSE ${epoch} IS NULL OR (lease_holder = ${holder} AND lease_epoch = ${epoch}) END)`,
  };
}
