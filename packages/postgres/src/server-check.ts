import type pg from 'pg';
import type { TargetSessionAttrs } from './target-hosts.js';

/**
 * The check a store's connection makes of its server after each connect:
 * that it takes writes when it must, and that a server taking writes is not
 * a stale one (the old primary of a failover, back un-demoted) whose data
 * the promoted standby lacks.
 */

/**
 * Per database (its system identifier, which a standby shares with its
 * primary): the highest timeline a connection of this process reached. A
 * promoted standby starts a new timeline; the old primary, back un-demoted,
 * stays on the old one.
 */
const timelines = new Map<string, number>();

/** What a check asks of the server beyond whether it takes writes (see {@link checkSql}). */
type CheckLevel = 'identity and barrier' | 'identity' | 'writes only';
const LEVELS: readonly CheckLevel[] = ['identity and barrier', 'identity', 'writes only'];

/**
 * One statement: whether the server takes writes, and, as `level` asks, its
 * system identifier and timeline and, on a server that takes writes, a
 * barrier: a transactional WAL message (an empty one, prefix
 * `taskwire-barrier`) makes the statement a commit that waits for the
 * server's synchronous standbys (if it has any) like any write, so it
 * returns only once they hold everything the server showed before.
 */
function checkSql(level: CheckLevel): string {
  const writes = "NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'";
  const identity = level === 'writes only'
    ? 'NULL::text AS system, NULL::int AS timeline'
    : `(SELECT system_identifier::text FROM pg_control_system()) AS system,
  CASE WHEN pg_is_in_recovery() THEN NULL ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END AS timeline`;
  const barrier = level === 'identity and barrier' ? `CASE WHEN ${writes} THEN pg_logical_emit_message(true, 'taskwire-barrier', '')::text END` : "'none'";
  return `SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only, ${identity}, ${barrier} AS barrier`;
}

/**
 * How much the servers of this process answer: a server that refuses a
 * function of the check (revoked, missing, or not supported, as on some
 * managed services) moves every later check down a level, for good.
 */
let level = 0;

/** True for an error of the statement itself (a SQLSTATE that is not a connection or server-shutdown one): a function the server refuses. */
function refusedFunction(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57');
}

/** The server routine that warns of a commit whose wait for synchronous standbys was cancelled (it is local only). */
const SYNC_WAIT_ROUTINE = 'SyncRepWaitForLSN';

/**
 * A server that takes writes but cannot be trusted with them: a primary of
 * an older timeline than one this process already reached for the same
 * database (the old primary of a failover, back un-demoted), one whose
 * commits do not reach its synchronous standbys (a primary back from a
 * crash while its standby was promoted), or one that answered a commit
 * with its warning that it stopped waiting for them (the commit is local
 * only, and a failover may lose it: never acknowledged as stored). The
 * connection is dropped; `code` 08006 (a connection failure) is retryable,
 * and a commit that meets it is one of unknown outcome.
 */
export class StaleServerError extends Error {
  override readonly name = 'StaleServerError';
  readonly code = '08006';
}

/** Ends a client's socket at once. */
export function drop(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Checks the server `client` reached (see {@link checkSql}); resolves
 * whether it takes writes, as `sessionAttrs` means it (always, with `any`). Throws
 * {@link StaleServerError} for a server that takes writes while it is a
 * primary of an older timeline than this process reached for its database,
 * or whose barrier commit was not confirmed by its synchronous standbys
 * within `limitMs`. `where` names the server in messages.
 */
export async function checkServer(client: pg.Client, sessionAttrs: TargetSessionAttrs, limitMs: number, where: string): Promise<boolean> {
  let unreplicated = false;
  const notice = (message: { routine?: string }) => {
    if (message.routine === SYNC_WAIT_ROUTINE) unreplicated = true;
  };
  client.on('notice', notice);
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      const message = `The PostgreSQL server at ${where} did not confirm a commit within ${limitMs} ms of connecting (its synchronous standbys do not answer, as for the old primary of a failover, or the network stopped answering): the connection is dropped and tried again`;
      timer = setTimeout(() => reject(new StaleServerError(message)), limitMs);
    });
    type Row = { recovery: boolean; read_only: string; system: string | null; timeline: number | null; barrier: string | null };
    const query = async () => {
      for (;;) {
        try {
          return await client.query<Row>(checkSql(LEVELS[level]!));
        } catch (error) {
          if (level === LEVELS.length - 1 || !refusedFunction(error)) throw error;
          level++;
        }
      }
    };
    const { rows } = await Promise.race([query(), late]);
    const row = rows[0]!;
    const writable = sessionAttrs === 'any' || (sessionAttrs === 'primary' ? !row.recovery : row.read_only === 'off' && !row.recovery);
    if (unreplicated) throw new StaleServerError(`The PostgreSQL server at ${where} committed locally only (it stopped waiting for its synchronous standbys): the connection is dropped and tried again`);
    if (row.system === null || row.timeline === null || row.barrier === null) return writable;
    const highest = timelines.get(row.system) ?? 0;
    if (row.timeline < highest) {
      throw new StaleServerError(
        `The PostgreSQL server at ${where} is a primary on timeline ${row.timeline}, behind timeline ${highest} this process already reached (the old primary of a failover, back un-demoted): the connection is dropped and another is tried`,
      );
    }
    timelines.set(row.system, row.timeline);
    return writable;
  } finally {
    clearTimeout(timer);
    client.off('notice', notice);
  }
}

/**
 * Watches `client` for the server's warning that a commit stopped waiting
 * for its synchronous standbys (its backend was cancelled during the wait,
 * as `pg_cancel_backend` does): the statement fails with
 * {@link StaleServerError} instead of succeeding, and the connection is
 * dropped (the next one is checked).
 */
export function refuseUnreplicated(client: pg.Client): void {
  client.on('notice', (message: { routine?: string }) => {
    if (message.routine !== SYNC_WAIT_ROUTINE) return;
    const active = (client as unknown as { _getActiveQuery?(): { _canceledDueToError?: unknown } | null })._getActiveQuery?.();
    if (active) {
      active._canceledDueToError = new StaleServerError(
        'The database committed this change locally but its synchronous standbys did not confirm it (a failover may lose it): it was either stored or not; read before repeating it',
      );
    }
    setImmediate(() => drop(client));
  });
}
