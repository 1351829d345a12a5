import { createHash } from 'node:crypto';

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

/**
 * What the advisory lock of replica `name` on `schema` is keyed on (its
 * `hashtextextended`): the LISTEN connection of a process with that name
 * holds it, so a process granted it knows that no other live process of
 * the schema's cluster uses the name.
 */
export function replicaLockName(schema: string, name: string): string {
  return `taskwire replica ${schema} ${name}`;
}

/**
 * The `application_name` of a replica's own sessions (`role`: listener or
 * cluster): its process tag first, so that PostgreSQL's 63-byte limit
 * never cuts it off (a start-up take-over looks for it in
 * `pg_stat_activity`: a process with a session is not gone).
 */
export function sessionName(role: string, tag: string, replicaName: string | undefined): string {
  return `taskwire ${role} ${tag}${replicaName === undefined ? '' : ` ${replicaName}`}`;
}
