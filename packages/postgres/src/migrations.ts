import { EPOCH_SEQUENCE_MIGRATION } from './cluster/epoch-sequence-migration.js';
import { HEARTBEAT_MIGRATION } from './cluster/heartbeat-migration.js';
import { LEASE_HOLDER_MIGRATION } from './cluster/lease-holder-migration.js';
import { CLUSTER_MIGRATION } from './cluster/lease-migration.js';
import { SNAPSHOT_GUARD_MIGRATION } from './snapshot-guard-migration.js';
import { SNAPSHOT_MIGRATION } from './snapshot-migration.js';
import { TASK_COUNT_MIGRATION } from './task-count-migration.js';

/**
 * One step of the schema: a version (1, 2, ... in order), a name, and the
 * SQL that takes the schema from the previous version to it. `S` stands
 * for the quoted schema name. Steps are only ever added, never edited or
 * removed, and none drops data: a store of an older release keeps working
 * on a schema a newer release migrated (rolling upgrades).
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  sql(S: string): string;
}

/** Terminal states, as stored in `tasks.state` (a finished task's row never changes). */
export const TERMINAL_STATE_LIST = "('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')";
/** States of a task an agent is (or was) running: what `unsettled()` returns. */
export const RUNNING_STATE_LIST = "('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')";

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tasks and their event logs',
    // Scalar columns beside the task JSON (text: stored and returned byte for byte) serve ListTasks:
    // one index per filter, each in the cursor order (status timestamp key desc, id desc), per owner.
    sql: (S) => `
      CREATE TABLE ${S}.tasks (
        id text COLLATE "C" PRIMARY KEY,
        owner text COLLATE "C" NOT NULL,
        context_id text COLLATE "C" NOT NULL,
        state text COLLATE "C" NOT NULL,
        status_key text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        last_sequence bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        trace text,
        task text NOT NULL
      );
      CREATE INDEX tasks_by_owner ON ${S}.tasks (owner, status_key DESC, id DESC);
      CREATE INDEX tasks_by_context ON ${S}.tasks (owner, context_id, status_key DESC, id DESC);
      CREATE INDEX tasks_by_state ON ${S}.tasks (owner, state, status_key DESC, id DESC);
      CREATE INDEX tasks_running ON ${S}.tasks (id) WHERE state IN ${RUNNING_STATE_LIST};
      CREATE TABLE ${S}.task_events (
        task_id text COLLATE "C" NOT NULL,
        sequence bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        event text NOT NULL,
        PRIMARY KEY (task_id, sequence)
      );
      CREATE INDEX task_events_by_age ON ${S}.task_events USING brin (created_at);
    `,
  },
  {
    version: 2,
    name: 'push notification configs and dead letters',
    sql: (S) => `
      CREATE TABLE ${S}.push_configs (
        task_id text COLLATE "C" NOT NULL,
        config_id text COLLATE "C" NOT NULL,
        owner text NOT NULL,
        delivered bigint NOT NULL,
        config text NOT NULL,
        PRIMARY KEY (task_id, config_id)
      );
      CREATE TABLE ${S}.push_dead_letters (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        task_id text COLLATE "C" NOT NULL,
        config_id text COLLATE "C" NOT NULL,
        sequence bigint NOT NULL,
        given_up_at timestamptz NOT NULL,
        letter text NOT NULL
      );
      CREATE INDEX push_dead_letters_by_task ON ${S}.push_dead_letters (task_id, id);
    `,
  },
  CLUSTER_MIGRATION,
  SNAPSHOT_MIGRATION,
  SNAPSHOT_GUARD_MIGRATION,
  EPOCH_SEQUENCE_MIGRATION,
  TASK_COUNT_MIGRATION,
  HEARTBEAT_MIGRATION,
  LEASE_HOLDER_MIGRATION,
];

/** The schema version this release of the package works with (the newest migration). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
