import { RUNNING_STATES, TERMINAL_STATES } from './schema.js';

/**
 * The statements of the SQLite task store. A commit is one batch (one
 * transaction): the row is created or changed only when the commit may
 * (a create: no row with that id; an update: the stored version is the
 * expected one, the owner is the same and the task is not terminal), the
 * events are logged only when it was (`changes() = 1`: the row statement
 * just before changed its row), with the sequence numbers after the row's
 * previous `last_sequence`, and the row is read back to say what happened.
 *
 * Events travel as one JSON array of their JSON texts (`json_each`), so a
 * commit is the same few statements whatever its number of events.
 */
export const TASK_SQL = {
  /** ?1 id, ?2 owner, ?3 context, ?4 state, ?5 status key, ?6 task JSON, ?7 event count, ?8 trace, ?9 now (ms). */
  create: `INSERT INTO taskwire_tasks (id, owner, context_id, state, status_key, version, last_sequence, task, trace, updated_at)
    VALUES (?1, ?2, ?3, ?4, ?5, 1, ?7, ?6, ?8, ?9) ON CONFLICT (id) DO NOTHING`,
  /** ?1..?6 as `create`, ?7 event count, ?8 now (ms), ?9 the expected version. Writes the task JSON (the snapshot is current). */
  update: `UPDATE taskwire_tasks SET context_id = ?3, state = ?4, status_key = ?5, task = ?6, snapshot_sequence = NULL,
      version = version + 1, last_sequence = last_sequence + ?7, updated_at = ?8
    WHERE id = ?1 AND version = ?9 AND owner = ?2 AND state NOT IN ${TERMINAL_STATES}`,
  /** As `update` without the task JSON (?6 unused, null): the stored JSON stays a snapshot at `snapshot_sequence`, the events after it pending. */
  append: `UPDATE taskwire_tasks SET context_id = ?3, state = ?4, status_key = ?5, snapshot_sequence = coalesce(snapshot_sequence, last_sequence),
      version = version + 1, last_sequence = last_sequence + ?7, updated_at = ?8
    WHERE id = ?1 AND version = ?9 AND owner = ?2 AND state NOT IN ${TERMINAL_STATES} AND ?6 IS NULL`,
  /** ?1 id, ?2 events (a JSON array of JSON texts), ?3 how many of the newest to keep (-1: all). Only after a row statement that changed its row. */
  logEvents: `INSERT INTO taskwire_task_events (task_id, sequence, event)
    SELECT ?1, t.last_sequence - json_array_length(?2) + j.key + 1, j.value
    FROM taskwire_tasks t, json_each(?2) j
    WHERE t.id = ?1 AND changes() = 1 AND (?3 < 0 OR j.key >= json_array_length(?2) - ?3)`,
  /** ?1 id, ?2 the retention bound: drops the events that fell out of it. */
  prune: `DELETE FROM taskwire_task_events WHERE task_id = ?1
    AND sequence <= (SELECT last_sequence - ?2 FROM taskwire_tasks WHERE id = ?1)`,
  /** ?1 id: what a commit left (or why it changed nothing). */
  probe: 'SELECT version, owner, state, last_sequence FROM taskwire_tasks WHERE id = ?1',
  /** ?1 id: the row, and the events logged after its snapshot as a JSON array (null when the JSON is current). */
  get: `SELECT owner, version, last_sequence, trace, task,
      CASE WHEN snapshot_sequence IS NOT NULL THEN (
        SELECT json_group_array(json(e.event)) FROM (
          SELECT event FROM taskwire_task_events WHERE task_id = t.id AND sequence > t.snapshot_sequence ORDER BY sequence
        ) e
      ) END AS pending
    FROM taskwire_tasks t WHERE id = ?1`,
  /** ?1 id: the row without its JSON (`TaskStore.head`). */
  head: 'SELECT owner, version, last_sequence, state FROM taskwire_tasks WHERE id = ?1',
  /** ?1 id, ?2 after sequence, ?3 limit (-1: none). */
  readEvents: 'SELECT sequence, event FROM taskwire_task_events WHERE task_id = ?1 AND sequence > ?2 ORDER BY sequence LIMIT ?3',
  unsettled: `SELECT id FROM taskwire_tasks WHERE state IN ${RUNNING_STATES}`,
  deleteTask: 'DELETE FROM taskwire_tasks WHERE id = ?1',
  deleteEvents: 'DELETE FROM taskwire_task_events WHERE task_id = ?1',
} as const;
