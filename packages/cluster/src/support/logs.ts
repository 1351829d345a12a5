import type { TaskState } from '@taskwire/core';
import { logProblems, numbered } from '@taskwire/reliability/support/lifecycle-check';
import pg from 'pg';

/**
 * Reads the event logs of a schema's tasks (all of them, or those of
 * `taskIds`) straight from the database and returns their problems (see
 * `logProblems`: gaps, except before the task itself, disallowed
 * transitions, anything after a terminal state, a last state other than
 * the task's), each prefixed with its task.
 */
export async function storedLogProblems(url: string, schema: string, taskIds?: readonly string[]): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const S = `"${schema.replace(/"/g, '""')}"`;
    const tasks = await pool.query<{ id: string; state: TaskState }>(
      `SELECT id, state FROM ${S}.tasks${taskIds ? ' WHERE id = ANY($1::text[])' : ''}`,
      taskIds ? [taskIds] : [],
    );
    const problems: string[] = [];
    for (const { id, state } of tasks.rows) {
      const { rows } = await pool.query<{ sequence: string; event: string }>(`SELECT sequence, event FROM ${S}.task_events WHERE task_id = $1 ORDER BY sequence`, [id]);
      const log = rows.map((r) => numbered({ sequence: Number(r.sequence), event: JSON.parse(r.event) }));
      // A gap is sound only before the task itself: a task settled after commits a failover lost (`TaskStore.commitFrom`).
      problems.push(...logProblems(log, { finalState: state, snapshots: true }).map((p) => `task ${id}: ${p}`));
    }
    if (taskIds && tasks.rows.length !== taskIds.length) problems.push(`${taskIds.length - tasks.rows.length} of the tasks are not stored`);
    return problems;
  } finally {
    await pool.end();
  }
}
