import type { CoordinatorHost, Logger } from '@taskwire/core';
import type pg from 'pg';
import { RUNNING_STATE_LIST } from '../migrations.js';
import { prepared } from '../schema-name.js';

/**
 * How an abort request's payload starts on the schema's channel. A commit's
 * payload starts with a number, so a replica of an older release, which
 * reads every payload as `"<sequence> <id>"`, finds no number here and
 * ignores it.
 */
const PREFIX = 'abort ';
/** Payloads longer than this are not sent (PostgreSQL's limit is 8,000 bytes): the cancel is then made at once. */
const MAX_PAYLOAD_BYTES = 7_000;

/** The payload asking the replica running `taskId` to abort its run with `graceMs`: `"abort <grace ms> <task id>"`. */
export function abortRequestPayload(taskId: string, graceMs: number): string {
  return `${PREFIX}${graceMs} ${taskId}`;
}

/** An abort request read from a payload (see {@link abortRequestPayload}), or undefined for any other payload. */
export function parseAbortRequest(payload: string | undefined): { taskId: string; graceMs: number } | undefined {
  if (!payload?.startsWith(PREFIX)) return undefined;
  const space = payload.indexOf(' ', PREFIX.length);
  if (space <= PREFIX.length) return undefined;
  const graceMs = Number(payload.slice(PREFIX.length, space));
  if (!Number.isSafeInteger(graceMs) || graceMs <= 0) return undefined;
  return { taskId: payload.slice(space + 1), graceMs };
}

/**
 * The abort requests of one replica (see `TaskCoordinator.requestAbort`):
 * asked by one statement that sends the request on the schema's channel
 * only when the task is submitted or working and its lease is held by
 * another replica whose lease is live (the row's expiry or its holder's
 * heartbeat still ahead, on the database's clock); it commits nothing.
 * Every replica hears it; the one running the task aborts the run with the
 * grace and cancels what the agent left (`CoordinatorHost.abortRun`).
 */
export class AbortRequests {
  private readonly statement: string;

  /** `S`: the quoted schema; `channel`: its commits' channel; `processId`: this replica's lease holder name. */
  constructor(
    private readonly pool: pg.Pool,
    S: string,
    private readonly channel: string,
    private readonly processId: string,
    private readonly logger: Logger | undefined,
  ) {
    this.statement = `SELECT pg_notify($3, $4) FROM ${S}.tasks t LEFT JOIN ${S}.lease_heartbeats b ON b.holder = t.lease_holder
      WHERE t.id = $1 AND t.state IN ${RUNNING_STATE_LIST} AND t.lease_holder IS NOT NULL AND t.lease_holder <> $2
        AND greatest(t.lease_expires_at, b.expires_at) > now()`;
  }

  /** Asks the live replica holding `taskId`'s lease to abort its run with `graceMs`; resolves whether one was asked. */
  async request(taskId: string, graceMs: number): Promise<boolean> {
    const payload = abortRequestPayload(taskId, Math.ceil(graceMs));
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) return false;
    const { rowCount } = await this.pool.query(prepared(this.statement, [taskId, this.processId, this.channel, payload]));
    return (rowCount ?? 0) > 0;
  }

  /** A request was heard: the service aborts the task's run if it is here (`host`, once attached); nothing escapes. */
  heard(host: CoordinatorHost | undefined, taskId: string, graceMs: number): void {
    host?.abortRun?.(taskId, graceMs).catch((error: unknown) => this.logger?.warn({ taskId, error: String(error) }, 'Taskwire postgres: could not cancel a run another replica asked to abort'));
  }
}
