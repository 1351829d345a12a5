import { encodePageToken, listQueryBounds, projectTask, type Logger, type Task, type TaskListPage, type TaskQuery } from '@taskwire/core';
import type { SqliteStatement, SqliteValue } from './driver.js';
import { taskOfRow } from './task-row.js';

/** The two statements that answer a ListTasks query: its total, then its page (one row more than asked, to tell whether another follows). */
export interface ListStatements {
  readonly total: SqliteStatement;
  readonly page: SqliteStatement;
  readonly pageSize: number;
}

/** The page columns: the task's snapshot and the events logged after it (see `TASK_SQL.get`). */
const PAGE_COLUMNS = `id, status_key, last_sequence, task, CASE WHEN snapshot_sequence IS NOT NULL THEN (
    SELECT json_group_array(json(e.event)) FROM (
      SELECT event FROM taskwire_task_events WHERE task_id = t.id AND sequence > t.snapshot_sequence ORDER BY sequence
    ) e
  ) END AS pending`;

/**
 * Builds a ListTasks query as SQL on the tasks' indexes (owner, then
 * context or state, then status key and id, descending). The total comes
 * from the per-owner, per-state counts when the query filters at most by
 * state (a few rows, however many tasks), and is counted over the filter's
 * index range otherwise. Both run in one transaction, so they agree.
 */
export function listStatements(query: TaskQuery): ListStatements {
  const { pageSize, cursor, after } = listQueryBounds(query);
  const values: SqliteValue[] = [query.owner];
  const where = ['owner = ?1'];
  const add = (condition: (n: number) => string, value: SqliteValue) => {
    values.push(value);
    where.push(condition(values.length));
  };
  if (query.contextId !== undefined) add((n) => `context_id = ?${n}`, query.contextId);
  if (query.status !== undefined) add((n) => `state = ?${n}`, query.status);
  if (after !== undefined) add((n) => `status_key >= ?${n}`, after);
  const filter = where.join(' AND ');
  const counted = query.contextId === undefined && after === undefined;
  const total: SqliteStatement = {
    sql: counted ? `SELECT coalesce(sum(n), 0) AS total FROM taskwire_task_counts WHERE ${filter}` : `SELECT count(*) AS total FROM taskwire_tasks WHERE ${filter}`,
    params: [...values],
  };
  let page = filter;
  if (cursor !== undefined) {
    values.push(cursor.key, cursor.id);
    page += ` AND (status_key, id) < (?${values.length - 1}, ?${values.length})`;
  }
  values.push(pageSize + 1);
  const sql = `SELECT ${PAGE_COLUMNS} FROM taskwire_tasks t WHERE ${page} ORDER BY status_key DESC, id DESC LIMIT ?${values.length}`;
  return { total, page: { sql, params: values }, pageSize };
}

/** A row of the page statement. */
export interface ListRow {
  readonly id: string;
  readonly status_key: string;
  /** The task's generation (a driver may read an INTEGER as a bigint). */
  readonly last_sequence: number | bigint;
  readonly task: string;
  readonly pending: string | null;
}

/** The response from the total and the page's rows: parsed, projected tasks, their generations and the next page's token (a row that does not read is logged and left out). */
export function listResponse(total: number, rows: readonly ListRow[], query: TaskQuery, pageSize: number, logger?: Logger): TaskListPage {
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1];
  const projection = { historyLength: query.historyLength, includeArtifacts: query.includeArtifacts };
  const tasks: Task[] = [];
  const generations: number[] = [];
  for (const row of page) {
    try {
      tasks.push(projectTask(taskOfRow(row.task, row.pending, logger), projection));
      generations.push(Number(row.last_sequence));
    } catch (error) {
      logger?.error({ taskId: row.id, error: error instanceof Error ? error.message : String(error) }, 'Taskwire sqlite: a stored task cannot be read; ListTasks leaves it out');
    }
  }
  return {
    tasks,
    generations,
    nextPageToken: rows.length > pageSize && last ? encodePageToken({ key: last.status_key, id: last.id }) : '',
    pageSize,
    totalSize: total,
  };
}
