import { encodePageToken, listQueryBounds, projectTask, type Logger, type Task, type TaskListPage, type TaskQuery } from '@taskwire/core';
import { storable } from './database-errors.js';
import { pendingColumn } from './task-sql.js';
import { taskOfRow } from './task-row.js';

/** A ListTasks query as SQL: its text (one per combination of filters, so each is planned for its index) and values. */
export interface ListStatement {
  readonly text: string;
  readonly values: unknown[];
  readonly pageSize: number;
}

/**
 * Builds the one statement that answers a ListTasks query: the count of
 * every match (`totalSize`) and the page after the cursor (each task's snapshot with the events logged after it), in the order of that index (status timestamp
 * key descending, id descending), one row more than the page to tell
 * whether another page follows. The count comes on every row, and on a row
 * of its own (with a null task) when the page is empty.
 *
 * With `counts` (the schema's task counts are whole, see
 * `TASK_COUNT_MIGRATION`), a query with no filter or only `status` reads
 * the count from the counts and their deltas (a few rows per owner, never
 * the owner's tasks); with `contextId` or `statusTimestampAfter`, it is
 * counted over that filter's index range (the context's tasks, or those
 * after the timestamp), never over the JSON. Without `counts`, every
 * count is taken over the filter's index. Either way it is exact and of
 * the same snapshot as the page.
 */
export function listStatement(S: string, query: TaskQuery, counts = false): ListStatement {
  const { pageSize, cursor, after } = listQueryBounds(query);
  const values: unknown[] = [storable(query.owner, 'tenant')];
  const where = ['owner = $1'];
  if (query.contextId !== undefined) {
    values.push(storable(query.contextId, 'contextId'));
    where.push(`context_id = $${values.length}`);
  }
  if (query.status !== undefined) {
    values.push(query.status);
    where.push(`state = $${values.length}`);
  }
  if (after !== undefined) {
    values.push(after);
    where.push(`status_key >= $${values.length}`);
  }
  const filter = where.join(' AND ');
  const counted =
    counts && query.contextId === undefined && after === undefined
      ? `SELECT (SELECT coalesce(sum(n), 0) FROM ${S}.task_counts WHERE ${filter}) + (SELECT coalesce(sum(d), 0) FROM ${S}.task_count_deltas WHERE ${filter}) AS total`
      : `SELECT count(*) AS total FROM ${S}.tasks WHERE ${filter}`;
  let page = filter;
  if (cursor !== undefined) {
    values.push(cursor.key, storable(cursor.id, 'pageToken'));
    page += ` AND (status_key, id) < ($${values.length - 1}, $${values.length})`;
  }
  values.push(pageSize + 1);
  const text = `SELECT c.total, p.id, p.status_key, p.last_sequence, p.task, p.pending
    FROM (${counted}) c
    LEFT JOIN LATERAL (
      SELECT id, status_key, last_sequence, task, ${pendingColumn(S)} FROM ${S}.tasks t WHERE ${page}
      ORDER BY status_key DESC, id DESC LIMIT $${values.length}
    ) p ON true`;
  return { text, values, pageSize };
}

/** A row of {@link listStatement}. */
export interface ListRow {
  readonly total: string | number;
  readonly id: string | null;
  readonly status_key: string | null;
  /** The task's generation (a bigint: a string from pg). */
  readonly last_sequence: string | number | null;
  readonly task: string | null;
  readonly pending: string[] | null;
}

/**
 * Turns the rows of {@link listStatement} into the response: parsed,
 * projected tasks, their generations and the next page's token. A row that cannot be read
 * (its JSON does not parse) is reported through `logger` and left out:
 * one bad row never fails the page (see `taskOfRow` for damaged logs).
 */
export function listResponse(rows: readonly ListRow[], query: TaskQuery, pageSize: number, logger?: Logger): TaskListPage {
  const totalSize = Number(rows[0]?.total ?? 0);
  const found = rows.filter((row) => row.task !== null);
  const page = found.slice(0, pageSize);
  const last = page[page.length - 1];
  const projection = { historyLength: query.historyLength, includeArtifacts: query.includeArtifacts };
  const tasks: Task[] = [];
  const generations: number[] = [];
  for (const row of page) {
    try {
      tasks.push(projectTask(taskOfRow(row.task!, row.pending, logger), projection));
      generations.push(Number(row.last_sequence));
    } catch (error) {
      logger?.error({ taskId: row.id, error: error instanceof Error ? error.message : String(error) }, 'Taskwire postgres: a stored task cannot be read; ListTasks leaves it out');
    }
  }
  return {
    tasks,
    generations,
    nextPageToken: found.length > pageSize && last ? encodePageToken({ key: last.status_key!, id: last.id! }) : '',
    pageSize,
    totalSize,
  };
}
