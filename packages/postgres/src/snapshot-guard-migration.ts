import type { Migration } from './migrations.js';

/** The contract step that lets this release leave a task's JSON behind its event log (see {@link SNAPSHOT_GUARD_MIGRATION}). */
export const SNAPSHOT_LOGS_STEP = 'snapshot-logs';

/**
 * The schema step that keeps task snapshots (migration 4) whole while a
 * release that knows nothing of them shares the tables, whatever that
 * release does, and records which behaviours older releases cannot read
 * may be switched on:
 *
 * - `task_event_kept`: a delete of an event that its task's stored JSON
 *   lacks (a sequence after `snapshot_sequence`) skips that row. An older
 *   release's age sweep or per-task bound deletes everything else as it
 *   always did; a task's own delete (its row first) is not held back.
 * - `task_snapshot_current`, again: a write of `task` that leaves
 *   `snapshot_sequence` as it was comes from a release that built the JSON
 *   on the stale snapshot; the artifact updates logged after the snapshot
 *   are folded into it (replaced, added, or their parts appended, as the
 *   lifecycle reducer does) before the column is cleared, so their chunks
 *   are not erased.
 * - `taskwire_contract_steps`: the steps recorded so far (see
 *   `taskwire-postgres contract`). `snapshot-logs` is recorded at once on a
 *   new schema and on one that already had snapshots (version 4 applied in
 *   an earlier run: the releases that may be connected read them), and
 *   otherwise waits for the contract command: until then this release
 *   writes every task's JSON whole, as a release before snapshots reads it.
 */
export const SNAPSHOT_GUARD_MIGRATION: Migration = {
  version: 5,
  name: 'snapshot guards against older releases, and contract steps',
  sql: (S) => `
    CREATE TABLE ${S}.taskwire_contract_steps (
      step text COLLATE "C" PRIMARY KEY,
      done_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO ${S}.taskwire_contract_steps (step)
      SELECT '${SNAPSHOT_LOGS_STEP}'
      WHERE NOT EXISTS (SELECT 1 FROM ${S}.taskwire_migrations WHERE version < 4 AND applied_at < now())
         OR EXISTS (SELECT 1 FROM ${S}.taskwire_migrations WHERE version = 4 AND applied_at < now());
    CREATE FUNCTION ${S}.task_event_kept() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ${S}.tasks t WHERE t.id = OLD.task_id AND OLD.sequence > t.snapshot_sequence) THEN
          RETURN NULL;
        END IF;
        RETURN OLD;
      END
    $$;
    CREATE TRIGGER task_event_kept BEFORE DELETE ON ${S}.task_events
      FOR EACH ROW EXECUTE FUNCTION ${S}.task_event_kept();
    CREATE FUNCTION ${S}.task_with_logged_artifacts(task text, task_id text, after bigint, upto bigint) RETURNS text LANGUAGE plpgsql AS $$
      DECLARE
        t jsonb := task::jsonb;
        u jsonb;
        a jsonb;
        arts jsonb;
        merged jsonb;
        at integer;
      BEGIN
        FOR u IN SELECT e.event::jsonb -> 'artifactUpdate' FROM ${S}.task_events e
          WHERE e.task_id = task_with_logged_artifacts.task_id AND e.sequence > after AND e.sequence <= upto ORDER BY e.sequence
        LOOP
          CONTINUE WHEN u IS NULL OR jsonb_typeof(u -> 'artifact') IS DISTINCT FROM 'object';
          a := u -> 'artifact';
          arts := CASE WHEN jsonb_typeof(t -> 'artifacts') = 'array' THEN t -> 'artifacts' ELSE '[]'::jsonb END;
          SELECT x.i - 1 INTO at FROM jsonb_array_elements(arts) WITH ORDINALITY AS x(v, i) WHERE x.v ->> 'artifactId' = a ->> 'artifactId' LIMIT 1;
          IF NOT FOUND THEN at := NULL; END IF;
          IF coalesce((u ->> 'append')::boolean, false) THEN
            CONTINUE WHEN at IS NULL;
            merged := (arts -> at) || (a - 'parts' - 'metadata')
              || jsonb_build_object('parts', coalesce(arts -> at -> 'parts', '[]'::jsonb) || coalesce(a -> 'parts', '[]'::jsonb));
            IF (arts -> at) ? 'metadata' OR a ? 'metadata' THEN
              merged := merged || jsonb_build_object('metadata', coalesce(arts -> at -> 'metadata', '{}'::jsonb) || coalesce(a -> 'metadata', '{}'::jsonb));
            END IF;
            arts := jsonb_set(arts, ARRAY[at::text], merged);
          ELSIF at IS NULL THEN
            arts := arts || jsonb_build_array(a);
          ELSE
            arts := jsonb_set(arts, ARRAY[at::text], a);
          END IF;
          t := jsonb_set(t, '{artifacts}', arts);
        END LOOP;
        RETURN t::text;
      END
    $$;
    CREATE OR REPLACE FUNCTION ${S}.task_snapshot_current() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.snapshot_sequence IS NOT NULL AND NEW.snapshot_sequence = OLD.snapshot_sequence THEN
          NEW.task := ${S}.task_with_logged_artifacts(NEW.task, OLD.id, OLD.snapshot_sequence, OLD.last_sequence);
        END IF;
        NEW.snapshot_sequence := NULL;
        RETURN NEW;
      END
    $$;
  `,
};
