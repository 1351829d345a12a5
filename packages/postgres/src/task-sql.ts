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
 *
 * `$1` id, `$2` owner, `$3` context id, `$4` state, `$5` status sort key,
 * `$6` task JSON, `$7` events (a text[] of JSON), `$8` the trace context
 * (creates) or the expected version (updates), `$9` the bound (with
 * retention).
 */
export interface TaskStatements {
  readonly create: string;
  readonly update: string;
  /** Why a commit was refused: the row's version, owner and state. */
  readonly probe: string;
  readonly get: string;
  readonly ping: string;
  readonly readEvents: string;
  readonly unsettled: string;
  readonly deleteTask: string;
  readonly deleteEvents: string;
}

/** The task store's statements for schema `S` (quoted), keeping at most `maxEvents` events per task when it is set. */
export function taskStatements(S: string, maxEvents: number | undefined): TaskStatements {
  const bounded = maxEvents !== undefined && maxEvents !== Infinity;
  // With a bound ($9), only the events within it are written.
  const keep = (bound: string) => (bounded ? ` WHERE e.n > cardinality($7::text[]) - ${bound}` : '');
  const create = `WITH created AS (
      INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, trace)
      VALUES ($1, $2, $3, $4, $5, 1, cardinality($7::text[]), $6, $8)
      ON CONFLICT (id) DO NOTHING
      RETURNING last_sequence
    ), logged AS (
      INSERT INTO ${S}.task_events (task_id, sequence, event)
      SELECT $1, e.n, e.event FROM created, unnest($7::text[]) WITH ORDINALITY AS e(event, n)${keep('$9::bigint')}
    )
    SELECT 1 AS version, last_sequence FROM created`;
  const update = `WITH updated AS (
      UPDATE ${S}.tasks
      SET context_id = $3, state = $4, status_key = $5, task = $6, version = version + 1,
          last_sequence = last_sequence + cardinality($7::text[]), updated_at = now()
      WHERE id = $1 AND version = $8 AND owner = $2 AND state NOT IN ${TERMINAL_STATE_LIST}
      RETURNING version, last_sequence
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
    SELECT version, last_sequence FROM updated`;
  return {
    create,
    update,
    ping: 'SELECT 1',
    probe: `SELECT version, owner, state FROM ${S}.tasks WHERE id = $1`,
    get: `SELECT owner, version, last_sequence, trace, task FROM ${S}.tasks WHERE id = $1`,
    readEvents: `SELECT sequence, event FROM ${S}.task_events WHERE task_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
    unsettled: `SELECT id FROM ${S}.tasks WHERE state IN ${RUNNING_STATE_LIST}`,
    deleteTask: `DELETE FROM ${S}.tasks WHERE id = $1`,
    deleteEvents: `DELETE FROM ${S}.task_events WHERE task_id = $1`,
  };
}
