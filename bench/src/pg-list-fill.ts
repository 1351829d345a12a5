/**
 * The tables of `pg-list-bench.ts`: seed tasks made through each server's
 * service, then cloned in SQL to any size, the same way for Taskwire's
 * `taskwire.tasks` and the peer's `tasks`: clone g copies seed g % 200
 * (its JSON with id, context and status timestamp replaced), gets id
 * `clone-<g>`, context `ctx-<g / 10>` (10 tasks per context, as
 * conversations have a few) and a status timestamp g seconds after
 * 2026-01-02. Seeds 180-199 are interrupted (input-required): Taskwire's
 * by the reference agent (`quote`), the peer's set so in SQL (its agent
 * completes everything).
 */
import { encodePageToken } from '@taskwire/core';
import type pg from 'pg';
import { once, requestBody, type ServerProcess } from './http-load.js';

/** Seeds per server; clone g copies seed g % SEEDS. */
export const SEEDS = 200;
/** Seeds from this number on are input-required. */
const INTERRUPTED_FROM = 180;
const BASE = "timestamp '2026-01-02'";
const at = (format: string) => `to_char(${BASE} + g * interval '1 second', '${format}')`;

/** The peer's status JSON in `column` with its completed state made input-required. */
const interruptedStatus = (column: string) => `replace(${column}, '"TASK_STATE_COMPLETED"', '"TASK_STATE_INPUT_REQUIRED"')`;

/** Makes the seeds through `server`'s service (blocking SendMessage over JSON-RPC): echoes, and on Taskwire `quote` for the last 20. */
export async function fillThroughService(server: ServerProcess): Promise<void> {
  for (let i = 0; i < SEEDS; i++) {
    const text = i >= INTERRUPTED_FROM && server.kind !== 'peer-pg' ? `quote ${i}` : `echo hello ${i}`;
    const reply = JSON.parse(await once(server, requestBody('SendMessage', text))) as { error?: unknown };
    if (reply.error) throw new Error(`${server.kind} refused seed ${i}: ${JSON.stringify(reply.error)}`);
  }
}

/** Numbers the seeds (in the order they were made) in a table of their own, `bench_seeds` (the peer's last 20 made input-required). */
export async function numberSeeds(pool: pg.Pool, kind: string): Promise<void> {
  if (kind === 'peer-pg') {
    await pool.query(`CREATE TABLE bench_seeds AS SELECT (row_number() OVER (ORDER BY status_last_updated, id) - 1)::int AS n, t.*,
      status::jsonb ->> 'timestamp' AS ts FROM tasks t`);
  } else {
    await pool.query(`CREATE TABLE taskwire.bench_seeds AS SELECT (row_number() OVER (ORDER BY status_key, id) - 1)::int AS n, t.*,
      task::jsonb -> 'status' ->> 'timestamp' AS ts FROM taskwire.tasks t`);
  }
  if (kind === 'peer-pg') {
    // The peer's agent completes everything: its last 20 seeds are made input-required here, as the reference agent's quotes are.
    for (const table of ['tasks', 'bench_seeds']) {
      await pool.query(`UPDATE ${table} SET status_state = 'TASK_STATE_INPUT_REQUIRED', status = ${interruptedStatus('status')}
        WHERE id IN (SELECT id FROM bench_seeds WHERE n >= ${INTERRUPTED_FROM})`);
    }
  }
  const table = kind === 'peer-pg' ? 'bench_seeds' : 'taskwire.bench_seeds';
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
  if (rows[0].n !== SEEDS) throw new Error(`${kind}: expected ${SEEDS} seeds, found ${rows[0].n}`);
}

/** The statement that adds clones `$1` to `$2` (inclusive) to `kind`'s table. */
function cloneStatement(kind: string): string {
  const id = `'clone-' || g`;
  const context = `'ctx-' || (g / 10)`;
  if (kind === 'peer-pg') {
    return `INSERT INTO tasks (tenant, owner, id, context_id, status_last_updated, status_state, status, artifacts, history, metadata, protocol_version)
      SELECT s.tenant, s.owner, ${id}, ${context}, (extract(epoch FROM ${BASE} + g * interval '1 second') * 1000)::bigint,
        s.status_state, replace(s.status, s.ts, ${at('YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')}),
        replace(replace(s.artifacts, s.id, ${id}), s.context_id, ${context}), replace(replace(s.history, s.id, ${id}), s.context_id, ${context}),
        s.metadata, s.protocol_version
      FROM generate_series($1::int, $2::int) g JOIN bench_seeds s ON s.n = g % ${SEEDS}`;
  }
  return `INSERT INTO taskwire.tasks (id, owner, context_id, state, status_key, version, last_sequence, trace, task)
    SELECT ${id}, s.owner, ${context}, s.state, ${at('YYYY-MM-DD"T"HH24:MI:SS.MS')} || '000000', s.version, s.last_sequence, s.trace,
      replace(replace(replace(s.task, s.id, ${id}), s.context_id, ${context}), s.ts, ${at('YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')})
    FROM generate_series($1::int, $2::int) g JOIN taskwire.bench_seeds s ON s.n = g % ${SEEDS}`;
}

/** Adds clones to `kind`'s table until it holds `size` tasks in all (100,000 a statement), then vacuums and analyzes it. */
export async function cloneUpTo(pool: pg.Pool, kind: string, size: number): Promise<void> {
  const table = kind === 'peer-pg' ? 'tasks' : 'taskwire.tasks';
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}`);
  const statement = cloneStatement(kind);
  // Clone numbers start after the seeds, so the seeds (made first) stay the oldest tasks.
  for (let from = rows[0].n; from < size; from += 100_000) await pool.query(statement, [from, Math.min(size, from + 100_000) - 1]);
  await pool.query(`VACUUM ANALYZE ${table}`);
}

/**
 * The page token of `kind` that starts half way through the owner's tasks
 * (what a cursor walk holds there): the row at the middle of the list
 * order, encoded as that store encodes its cursor.
 */
export async function middleToken(pool: pg.Pool, kind: string, size: number): Promise<string> {
  if (kind === 'peer-pg') {
    const { rows } = await pool.query(`SELECT status_last_updated, id FROM tasks ORDER BY status_last_updated DESC, id DESC OFFSET $1 LIMIT 1`, [Math.floor(size / 2)]);
    // @a2a-js/sdk 1.3.0's cursor: base64 of "<ISO timestamp>|<id>" (its encodePageToken is not exported).
    return Buffer.from(`${new Date(Number(rows[0].status_last_updated)).toISOString()}|${rows[0].id}`).toString('base64');
  }
  const { rows } = await pool.query(`SELECT status_key, id FROM taskwire.tasks ORDER BY status_key DESC, id DESC OFFSET $1 LIMIT 1`, [Math.floor(size / 2)]);
  return encodePageToken({ key: rows[0].status_key, id: rows[0].id });
}
