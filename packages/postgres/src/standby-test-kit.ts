import type pg from 'pg';

/**
 * Keeps a copy of task `id`'s row in schema `S` (quoted) as it is now; the
 * function it resolves puts the row back (its version, log position, task
 * and state, not its lease) and drops the events logged since: what a
 * standby that lagged behind has once promoted, after a failover that lost
 * the commits made meanwhile.
 */
export async function standbyCopy(pool: pg.Pool, S: string, id: string): Promise<() => Promise<void>> {
  const kept = (await pool.query<{ last_sequence: string }>(`SELECT last_sequence FROM ${S}.tasks WHERE id = $1`, [id])).rows[0]!.last_sequence;
  await pool.query(`CREATE TABLE ${S}.standby AS SELECT * FROM ${S}.tasks WHERE id = $1`, [id]);
  return async () => {
    await pool.query(
      `UPDATE ${S}.tasks t SET version = s.version, last_sequence = s.last_sequence, task = s.task, snapshot_sequence = s.snapshot_sequence,
         state = s.state, status_key = s.status_key FROM ${S}.standby s WHERE t.id = s.id`,
    );
    await pool.query(`DELETE FROM ${S}.task_events WHERE task_id = $1 AND sequence > $2`, [id, kept]);
    await pool.query(`DROP TABLE ${S}.standby`);
  };
}
