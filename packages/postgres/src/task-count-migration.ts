import type { Migration } from './migrations.js';

/** Counter rows per key: a connection adds to the stripe of its backend, so writers of one owner seldom wait on each other. */
export const COUNT_STRIPES = 16;

/** The SQL that adds each transition-table row's `d` to both counter tables, in key order (locks taken in one order by every writer). */
function applyCounts(S: string, rows: string): string {
  return `
      INSERT INTO ${S}.task_counts AS c (owner, state, stripe, n)
        SELECT owner, state, pg_backend_pid() % ${COUNT_STRIPES}, sum(d) FROM (${rows}) r
        GROUP BY owner, state HAVING sum(d) <> 0 ORDER BY owner, state
        ON CONFLICT (owner, state, stripe) DO UPDATE SET n = c.n + EXCLUDED.n;
      INSERT INTO ${S}.task_context_counts AS c (owner, context_id, state, stripe, n)
        SELECT owner, context_id, state, pg_backend_pid() % ${COUNT_STRIPES}, sum(d) FROM (${rows}) r
        GROUP BY owner, context_id, state HAVING sum(d) <> 0 ORDER BY owner, context_id, state
        ON CONFLICT (owner, context_id, state, stripe) DO UPDATE SET n = c.n + EXCLUDED.n;`;
}

/**
 * The schema step that lets ListTasks report an exact `totalSize` without
 * counting the owner's rows: `task_counts` holds the number of tasks per
 * (owner, state) and `task_context_counts` per (owner, context, state),
 * each split into up to {@link COUNT_STRIPES} rows (`stripe`: the writing
 * backend's pid modulo the stripes) that a read adds up, so concurrent
 * writers of one owner (each holds its counter rows until it commits)
 * mostly update different rows instead of queueing on one.
 *
 * Statement triggers on `tasks` keep both in the statement that inserts,
 * updates or deletes tasks, so they commit (and are seen) with the rows
 * themselves, whichever release wrote them: a release that knows nothing of
 * the counters is counted too. Each statement folds its rows into one delta
 * per key and applies the non-zero ones in key order, so an update that
 * changes no state or context (a chunk, a lease renewal) writes no counter,
 * and two writers lock counter rows in the same order (no deadlock within a
 * statement).
 *
 * The backfill runs in the migration's transaction after the triggers are
 * created: `CREATE TRIGGER` holds a lock that makes every writer of `tasks`
 * wait until the migration commits (readers go on), so no row is missed or
 * counted twice while replicas of either release keep running.
 */
export const TASK_COUNT_MIGRATION: Migration = {
  version: 7,
  name: 'task counters per owner, state and context',
  sql: (S) => `
    CREATE TABLE ${S}.task_counts (
      owner text COLLATE "C" NOT NULL,
      state text COLLATE "C" NOT NULL,
      stripe smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (owner, state, stripe)
    );
    CREATE TABLE ${S}.task_context_counts (
      owner text COLLATE "C" NOT NULL,
      context_id text COLLATE "C" NOT NULL,
      state text COLLATE "C" NOT NULL,
      stripe smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (owner, context_id, state, stripe)
    );
    CREATE FUNCTION ${S}.task_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN${applyCounts(S, 'SELECT owner, context_id, state, 1 AS d FROM new_rows')}
        RETURN NULL;
      END
    $$;
    CREATE FUNCTION ${S}.task_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN${applyCounts(S, 'SELECT owner, context_id, state, -1 AS d FROM old_rows')}
        RETURN NULL;
      END
    $$;
    CREATE FUNCTION ${S}.task_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN${applyCounts(S, 'SELECT owner, context_id, state, 1 AS d FROM new_rows UNION ALL SELECT owner, context_id, state, -1 FROM old_rows')}
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER task_counts_inserted AFTER INSERT ON ${S}.tasks
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${S}.task_counts_inserted();
    CREATE TRIGGER task_counts_deleted AFTER DELETE ON ${S}.tasks
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${S}.task_counts_deleted();
    CREATE TRIGGER task_counts_updated AFTER UPDATE ON ${S}.tasks
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${S}.task_counts_updated();
    INSERT INTO ${S}.task_counts (owner, state, stripe, n)
      SELECT owner, state, 0, count(*) FROM ${S}.tasks GROUP BY owner, state;
    INSERT INTO ${S}.task_context_counts (owner, context_id, state, stripe, n)
      SELECT owner, context_id, state, 0, count(*) FROM ${S}.tasks GROUP BY owner, context_id, state;
  `,
};
