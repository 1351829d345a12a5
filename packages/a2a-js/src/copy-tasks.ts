import type { Task, TaskStore } from '@taskwire/core';
import { ownerOf, TaskSchema } from '@taskwire/core';

/** One row of `@a2a-js/sdk`'s task table (its `DatabaseTaskStore`), as a SQL client returns it. */
export interface A2AJsTaskRow {
  readonly tenant: string;
  readonly owner: string;
  readonly id: string;
  readonly context_id: string;
  /** ProtoJSON text (a2a-js's `Task.toJSON`), or null. */
  readonly status: string | null;
  readonly artifacts: string | null;
  readonly history: string | null;
  readonly metadata: string | null;
}

/** What {@link copyA2AJsTasks} reads from: a `pg` Pool or Client (or any client whose `query` resolves `{ rows }`). */
export interface A2AJsTaskSource {
  query(sql: string): Promise<{ rows: readonly A2AJsTaskRow[] }>;
}

/** How {@link copyA2AJsTasks} copies. */
export interface CopyA2AJsTasksOptions {
  /** The a2a-js task table (its `tableName` option), default `tasks`; a name of letters, digits, `_` and `.` only. */
  readonly table?: string;
  /**
   * The Taskwire owner key of a row (who may see the task): by default
   * the row's tenant and its owner as the principal id (`ownerOf` of
   * `@taskwire/core`), a2a-js's anonymous owner `unknown` being no
   * principal. Map it otherwise when the auth hook names callers
   * differently than a2a-js's `UserBuilder` did.
   */
  readonly owner?: (row: A2AJsTaskRow) => string;
  /** Rows read per query (default 500). */
  readonly batchSize?: number;
}

/** What {@link copyA2AJsTasks} did. */
export interface CopyA2AJsTasksResult {
  /** Tasks written to the Taskwire store. */
  readonly copied: number;
  /** Tasks the Taskwire store had already (a copy run again): left as they are. */
  readonly skipped: number;
}

/** a2a-js's user name of an unauthenticated caller, as its task store keys it. */
const ANONYMOUS = 'unknown';

const defaultOwner = (row: A2AJsTaskRow): string => ownerOf({ principal: row.owner && row.owner !== ANONYMOUS ? { id: row.owner } : undefined }, row.tenant);

/** Our task from an a2a-js row (its JSON is the v1.0 ProtoJSON Taskwire speaks); throws naming the task when it does not parse. */
export function taskOfA2AJsRow(row: A2AJsTaskRow): Task {
  const json = (text: string | null): unknown => (text ? JSON.parse(text) : undefined);
  const parsed = TaskSchema.safeParse({
    id: row.id,
    contextId: row.context_id,
    status: json(row.status),
    ...(row.artifacts && { artifacts: json(row.artifacts) }),
    ...(row.history && { history: json(row.history) }),
    ...(row.metadata && { metadata: json(row.metadata) }),
  });
  if (!parsed.success) throw new Error(`task ${row.id} of the a2a-js table does not read as an A2A task: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Copies the tasks `@a2a-js/sdk`'s `DatabaseTaskStore` wrote (its `tasks`
 * table, on PostgreSQL, MySQL or SQLite) into a Taskwire task store (say
 * `createPostgresTaskStore` of `@taskwire/postgres`, migrated): each task
 * as it was last saved, with its status, history, artifacts and metadata,
 * visible to the same tenant and caller (see
 * {@link CopyA2AJsTasksOptions.owner}). Rows are read in pages ordered by
 * id; a task the target has already is skipped, so a copy interrupted or
 * run again copies only what is missing. The source is only read.
 */
export async function copyA2AJsTasks(source: A2AJsTaskSource, target: TaskStore, options: CopyA2AJsTasksOptions = {}): Promise<CopyA2AJsTasksResult> {
  const table = options.table ?? 'tasks';
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(table)) throw new TypeError(`copyA2AJsTasks: not a table name: ${table}`);
  const batchSize = options.batchSize ?? 500;
  const ownerOfRow = options.owner ?? defaultOwner;
  let copied = 0;
  let skipped = 0;
  for (let offset = 0; ; offset += batchSize) {
    const { rows } = await source.query(
      `SELECT tenant, owner, id, context_id, status, artifacts, history, metadata FROM ${table} ORDER BY id, tenant, owner LIMIT ${batchSize} OFFSET ${offset}`,
    );
    for (const row of rows) {
      if (await target.get(row.id)) {
        skipped++;
        continue;
      }
      const task = taskOfA2AJsRow(row);
      await target.commit({ task, expectedVersion: 0, owner: ownerOfRow(row), events: [{ task }] });
      copied++;
    }
    if (rows.length < batchSize) return { copied, skipped };
  }
}
