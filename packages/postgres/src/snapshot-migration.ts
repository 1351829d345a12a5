import type { Migration } from './migrations.js';

/**
 * The schema step that lets a commit that only appends (a chunk, a status
 * update in the same state) log its events without rewriting the task's
 * JSON: `tasks.snapshot_sequence` is the last sequence the stored `task`
 * reflects when events were logged after it, and null when `task` is
 * current (every row before this step, and every commit that writes the
 * task). Reads reduce the events after it onto the snapshot.
 *
 * The trigger keeps a store of an older release right on the migrated
 * schema: its commits always write `task` (the current task) and know
 * nothing of the column, so any write of `task` that leaves the column set
 * clears it. This release clears it itself (the trigger then never runs).
 */
export const SNAPSHOT_MIGRATION: Migration = {
  version: 4,
  name: 'task snapshots behind the event log',
  sql: (S) => `
    ALTER TABLE ${S}.tasks ADD COLUMN snapshot_sequence bigint;
    CREATE FUNCTION ${S}.task_snapshot_current() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.snapshot_sequence := NULL;
        RETURN NEW;
      END
    $$;
    CREATE TRIGGER task_snapshot_current BEFORE UPDATE OF task ON ${S}.tasks
      FOR EACH ROW WHEN (NEW.snapshot_sequence IS NOT NULL) EXECUTE FUNCTION ${S}.task_snapshot_current();
  `,
};
