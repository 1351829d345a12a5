import { createHash, randomInt } from 'node:crypto';

/** The first 31 bits of the SHA-256 of `text`, as a positive integer (an advisory-lock key or a short tag). */
function key31(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) >>> 1;
}

/**
 * The LISTEN/NOTIFY channel of a schema's task commits: one per schema (so
 * two clusters on one database never wake each other), short enough for
 * PostgreSQL's 63-byte identifiers whatever the schema is called.
 */
export function eventsChannel(schema: string): string {
  return `taskwire_events_${key31(schema).toString(36)}`;
}

/**
 * The first key of the session advisory lock a replica holds while it is
 * alive (`pg_advisory_lock(classKey, processKey)`): one class per schema,
 * apart from every other lock of the database (the migrations lock takes
 * the one-key form).
 */
export function livenessClass(schema: string): number {
  return key31(`taskwire replicas ${schema}`);
}

/** A random process key (1 to 2^31 - 1): the replica's name as a lease holder, and its liveness lock's second key. */
export function randomProcessKey(): number {
  return randomInt(1, 2 ** 31 - 1);
}

/**
 * A commit notification's payload: only the task's last sequence and its
 * id (`"<sequence> <id>"`; the id may hold spaces, the number never does).
 */
export function parsePayload(payload: string | undefined): { taskId: string; lastSequence: number } | undefined {
  if (!payload) return undefined;
  const space = payload.indexOf(' ');
  if (space <= 0) return undefined;
  const lastSequence = Number(payload.slice(0, space));
  if (!Number.isSafeInteger(lastSequence)) return undefined;
  return { taskId: payload.slice(space + 1), lastSequence };
}
