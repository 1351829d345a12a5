import * as z from 'zod';

/**
 * Deepest nesting of objects and arrays a free-form JSON value (metadata, a
 * data part) may have: protobuf's default recursion limit. Deeper values are
 * refused at the edge, so no later step (copying, storing, encoding) can run
 * out of stack on them.
 */
export const MAX_JSON_DEPTH = 100;

function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (nestsDeeperThan(item, levels - 1)) return true;
  return false;
}

/** True when a JSON value nests objects and arrays at most {@link MAX_JSON_DEPTH} levels deep (it stops looking past that depth). */
export function isWithinJsonDepth(value: unknown): boolean {
  return !nestsDeeperThan(value, MAX_JSON_DEPTH);
}

/** The issue message of a value nested deeper than {@link MAX_JSON_DEPTH}. */
export const TOO_DEEP_MESSAGE = `nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep; flatten it`;

/** A `google.protobuf.Struct` in ProtoJSON: a JSON object with string keys, nested at most {@link MAX_JSON_DEPTH} levels. */
export const StructSchema = z.record(z.string(), z.unknown()).refine(isWithinJsonDepth, { message: TOO_DEEP_MESSAGE });
/** A free-form JSON object (metadata, extension params). */
export type Struct = z.infer<typeof StructSchema>;

/**
 * A `google.protobuf.Timestamp` in ProtoJSON: an ISO 8601 UTC string ending in
 * `Z` (`2025-10-28T10:30:00.000Z`). Offsets other than `Z` are rejected.
 */
export const TimestampSchema = z.iso.datetime({ offset: false, local: false });

/** A non-empty identifier (task, context, message, artifact ids). */
export const IdSchema = z.string().min(1, 'must be a non-empty string');

/** An `int32` count that must be zero or more (historyLength). */
export const NonNegativeIntSchema = z.number().int().min(0).max(2_147_483_647);

/**
 * An A2A 1.1 task generation (an int64): a whole number from 0, as a JSON
 * number or, as ProtoJSON writes int64, a decimal string; parsed to a number.
 */
export const GenerationSchema = z.union([z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,15}$/, 'a generation is a whole number').transform(Number)]);

/** A tenant path segment as used by the HTTP+JSON binding's `/{tenant}/...` prefix. */
export const TenantSchema = z.string().optional();

/**
 * A proto `oneof` in ProtoJSON: the input must be an object carrying exactly
 * one of `keys` (other, unknown keys are ignored, as the spec asks), then it
 * is parsed by `union`. `what` names the object in the error message.
 */
export function oneof<T extends z.ZodType>(what: string, keys: readonly string[], union: T) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        ctx.addIssue({ code: 'custom', message: `${what} must be an object` });
        return;
      }
      const present = keys.filter((k) => (value as Record<string, unknown>)[k] !== undefined);
      if (present.length !== 1) {
        const got = present.length ? present.join(', ') : 'none';
        ctx.addIssue({ code: 'custom', message: `${what} needs exactly one of ${keys.join(', ')} (got ${got})` });
      }
    })
    .pipe(union);
}
