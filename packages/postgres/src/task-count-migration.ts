import type { Migration } from './migrations.js';

/**
 * The schema step that lets ListTasks report an exact `totalSize` without
 * counting the owner's rows: the number of tasks per (owner, state) is
 * `task_counts.n` plus the sum of `task_count_deltas.d` for that key.
 *
 * Writers only ever insert: triggers on `tasks` append one delta row per
 * key a statement changes (a create +1, a delete -1, a change of state or
 * owner -1 and +1), in the writer's own transaction, so the deltas commit
 * (and are seen) with the rows themselves, whichever release wrote them. No
 * writer updates or locks a row another writer touches: commits never wait
 * on each other for the counts, and cannot deadlock over them. An update
 * that keeps its state and owner (a chunk, a lease renewal) writes nothing.
 *
 * A compaction (one process at a time, see `task-counts.ts`) folds deltas
 * into `task_counts` in one statement, so a reader sees the sum before or
 * after it, never half of it. `task_count_deltas` is a queue: vacuumed once
 * a thousand rows are dead whatever its size, and never truncated by a
 * vacuum (`vacuum_truncate` off: truncating takes a lock inserters wait on).
 *
 * `task_counts_ready` holds one row once the counts are whole. On a schema
 * with no tasks yet it is set here (the trigger's lock keeps writers out
 * until this transaction commits, so the table stays empty until the
 * triggers count); otherwise `migrate()` adds the rows that existed before
 * the triggers after this step commits (see `backfillTaskCounts`), without
 * holding up writers. Until then stores count the rows as before.
 */
export const TASK_COUNT_MIGRATION: Migration = {
  version: 7,
  name: 'task counts per owner and state, kept by append-only deltas',
  sql: (S) => `
    CREATE TABLE ${S}.task_counts (
      owner text COLLATE "C" NOT NULL,
      state text COLLATE "C" NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (owner, state)
    );
    CREATE TABLE ${S}.task_count_deltas (
      owner text COLLATE "C" NOT NULL,
      state text COLLATE "C" NOT NULL,
      d bigint NOT NULL
    ) WITH (vacuum_truncate = false, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
    CREATE INDEX task_count_deltas_by_key ON ${S}.task_count_deltas (owner, state);
    CREATE TABLE ${S}.task_counts_ready (
      ready boolean PRIMARY KEY DEFAULT true CHECK (ready),
      since timestamptz NOT NULL DEFAULT now()
    );
    CREATE FUNCTION ${S}.task_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${S}.task_count_deltas (owner, state, d) SELECT owner, state, count(*) FROM new_rows GROUP BY owner, state;
        RETURN NULL;
      END
    $$;
    CREATE FUNCTION ${S}.task_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${S}.task_count_deltas (owner, state, d) SELECT owner, state, -count(*) FROM old_rows GROUP BY owner, state;
        RETURN NULL;
      END
    $$;
    CREATE FUNCTION ${S}.task_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${S}.task_count_deltas (owner, state, d) VALUES (OLD.owner, OLD.state, -1), (NEW.owner, NEW.state, 1);
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER task_count_inserted AFTER INSERT ON ${S}.tasks
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${S}.task_count_inserted();
    CREATE TRIGGER task_count_deleted AFTER DELETE ON ${S}.tasks
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${S}.task_count_deleted();
    CREATE TRIGGER task_count_moved AFTER UPDATE OF owner, state ON ${S}.tasks
      FOR EACH ROW WHEN (OLD.owner IS DISTINCT FROM NEW.owner OR OLD.state IS DISTINCT FROM NEW.state)
      EXECUTE FUNCTION ${S}.task_count_moved();
    INSERT INTO ${S}.task_counts_ready (ready) SELECT true WHERE NOT EXISTS (SELECT 1 FROM ${S}.tasks);
  `,
};
