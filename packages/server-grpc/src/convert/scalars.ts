import type { Role as CoreRole, TaskState as CoreTaskState } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { Role, TaskState } from '../gen/lf/a2a/v1/a2a.js';
import type { Timestamp } from '../gen/google/protobuf/timestamp.js';

// Scalar rules shared by every converter. Proto3 has no presence for plain
// strings, bools and repeated fields: the empty value and "absent" are the
// same on the wire. Going to core, optional fields that hold their empty
// value are left out (so `'history' in task` is false, as on the JSON
// wires); required ones are always set, so validation names them.

/** Core value of a proto3 string without presence: `""` is absent. */
export function optionalString(value: string): string | undefined {
  return value === '' ? undefined : value;
}

/** Core value of a proto3 repeated field that core declares optional: empty is absent. */
export function optionalList<T>(value: readonly T[]): T[] | undefined {
  return value.length === 0 ? undefined : [...value];
}

/** Core value of a proto3 bool without presence: `false` is absent. */
export function optionalTrue(value: boolean): true | undefined {
  return value ? true : undefined;
}

/** Copies `value` onto `target[key]` unless it is undefined (keeps "absent" absent). */
export function put<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

const ISO_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * A `google.protobuf.Timestamp` from an ISO 8601 string, keeping up to
 * nanosecond precision. Strings not in the canonical UTC form are read with
 * `Date.parse`; a string that is not a date at all is `InvalidParams`
 * naming `field`.
 */
export function toTimestamp(iso: string, field: string): Timestamp {
  // Fast path for what core writes (`Date#toISOString`, millisecond precision):
  // Date.parse alone gives the same answer as the general path below.
  if (iso.length === 24 && iso.charCodeAt(19) === 0x2e /* . */ && iso.charCodeAt(23) === 0x5a /* Z */) {
    const ms = Date.parse(iso);
    if (!Number.isNaN(ms)) return { seconds: Math.floor(ms / 1000), nanos: (((ms % 1000) + 1000) % 1000) * 1e6 };
  }
  const match = ISO_UTC.exec(iso);
  const ms = Date.parse(match ? `${match[1]}Z` : iso);
  if (Number.isNaN(ms)) {
    throw new A2AError('InvalidParams', `Invalid parameters: ${field}: ${JSON.stringify(iso)} is not an ISO 8601 UTC timestamp`);
  }
  if (!match) return { seconds: Math.floor(ms / 1000), nanos: (((ms % 1000) + 1000) % 1000) * 1e6 };
  return { seconds: ms / 1000, nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/**
 * The ISO 8601 UTC string of a `google.protobuf.Timestamp`, with 3, 6 or 9
 * fraction digits (at least milliseconds, as `Date#toISOString`, so that
 * timestamps compare correctly as strings). A timestamp outside the range
 * of dates yields a string that validation rejects.
 */
export function fromTimestamp(timestamp: Timestamp): string {
  const { seconds, nanos } = timestamp;
  const date = new Date(seconds * 1000);
  if (!Number.isFinite(seconds) || Number.isNaN(date.getTime()) || nanos < 0 || nanos > 999_999_999) {
    return `invalid timestamp (seconds ${seconds}, nanos ${nanos})`;
  }
  const whole = date.toISOString().slice(0, 19);
  const digits = String(nanos).padStart(9, '0');
  const fraction = nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits;
  return `${whole}.${fraction}Z`;
}

/** A TypeScript enum's own entry (name to number or number to name); never an inherited property. */
function lookup<T>(enumObject: object, key: string | number): T | undefined {
  return Object.hasOwn(enumObject, key) ? ((enumObject as Record<string | number, unknown>)[key] as T) : undefined;
}

/** The proto enum number of a core task state (`UNRECOGNIZED` for unknown names). */
export function toTaskState(state: string): TaskState {
  return lookup<TaskState>(TaskState, state) ?? TaskState.UNRECOGNIZED;
}

/** The core name of a proto task state; unknown numbers give a name validation rejects. */
export function fromTaskState(state: TaskState): CoreTaskState {
  return (lookup<string>(TaskState, state) ?? `TASK_STATE_${state}`) as CoreTaskState;
}

/** The proto enum number of a core role. */
export function toRole(role: string): Role {
  return lookup<Role>(Role, role) ?? Role.UNRECOGNIZED;
}

/** The core name of a proto role; `ROLE_UNSPECIFIED` or unknown numbers stay visible for validation to reject. */
export function fromRole(role: Role): CoreRole {
  return (lookup<string>(Role, role) ?? `ROLE_${role}`) as CoreRole;
}

/** A proto `map<string, V>` from a core record (a copy; undefined maps become empty). */
export function toMap<A, B>(record: Readonly<Record<string, A>> | undefined, convert: (value: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  if (record) for (const [key, value] of Object.entries(record)) out[key] = convert(value);
  return out;
}
