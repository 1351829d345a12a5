/** The statements of the SQLite push config store (see `PushConfigStore` for what each call must do). */
export const PUSH_SQL = {
  /** ?1 task, ?2 config, ?3 owner, ?4 delivered, ?5 config JSON: create or replace; the cursor never moves back. */
  put: `INSERT INTO taskwire_push_configs (task_id, config_id, owner, delivered, config) VALUES (?1, ?2, ?3, ?4, ?5)
    ON CONFLICT (task_id, config_id) DO UPDATE
    SET owner = excluded.owner, config = excluded.config, delivered = max(taskwire_push_configs.delivered, excluded.delivered)
    RETURNING delivered`,
  get: 'SELECT owner, delivered, config FROM taskwire_push_configs WHERE task_id = ?1 AND config_id = ?2',
  list: 'SELECT owner, delivered, config FROM taskwire_push_configs WHERE task_id = ?1 ORDER BY config_id',
  all: 'SELECT owner, delivered, config FROM taskwire_push_configs ORDER BY task_id, config_id',
  keys: 'SELECT task_id, config_id FROM taskwire_push_configs ORDER BY task_id, config_id',
  taskKeys: 'SELECT task_id, config_id FROM taskwire_push_configs WHERE task_id = ?1 ORDER BY config_id',
  delete: 'DELETE FROM taskwire_push_configs WHERE task_id = ?1 AND config_id = ?2',
  deleteTask: 'DELETE FROM taskwire_push_configs WHERE task_id = ?1',
  /** ?1 task, ?2 config, ?3 sequence: forward only. */
  advance: 'UPDATE taskwire_push_configs SET delivered = ?3 WHERE task_id = ?1 AND config_id = ?2 AND delivered < ?3',
  /** ?1 task, ?2 config, ?3 sequence, ?4 given up at (ms), ?5 the letter's JSON. */
  letter: 'INSERT INTO taskwire_push_dead_letters (task_id, config_id, sequence, given_up_at, letter) VALUES (?1, ?2, ?3, ?4, ?5)',
  /** ?1 how many to keep: drops the oldest letters past it. */
  trimLetters: 'DELETE FROM taskwire_push_dead_letters WHERE id <= (SELECT max(id) FROM taskwire_push_dead_letters) - ?1',
  /** The newest ?1 letters (-1: all), oldest first; with ?2, of one task. */
  letters: (byTask: boolean) =>
    `SELECT letter FROM (SELECT id, letter FROM taskwire_push_dead_letters${byTask ? ' WHERE task_id = ?2' : ''} ORDER BY id DESC LIMIT ?1) ORDER BY id`,
} as const;
