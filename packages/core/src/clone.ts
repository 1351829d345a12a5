/** Deepest nesting the fast path copies; deeper values (and cycles) are left to `structuredClone`. */
const MAX_DEPTH = 100;
const TOO_DEEP = Symbol('too deep');

/**
 * A deep copy with the result of `structuredClone`, fast for the JSON-like
 * values stores hold (plain objects, plain arrays, primitives): about 15x
 * faster than `structuredClone`, which serialises. Anything else met on the
 * way (a Date, Map, typed array, class instance, a cycle, nesting deeper
 * than 100) is copied by `structuredClone` itself, which also throws a
 * `DataCloneError` for functions and symbols, exactly as before.
 */
export function cloneValue<T>(value: T): T {
  try {
    return copy(value, 0) as T;
  } catch (error) {
    if (error === TOO_DEEP) return structuredClone(value);
    throw error;
  }
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  if (depth > MAX_DEPTH) throw TOO_DEEP;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) out[i] = copy(array[i], depth + 1);
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[key], depth + 1);
    // An own `__proto__` key (JSON.parse makes those) must stay a key, not become the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/**
 * Deep-freezes a JSON-like value (plain objects, plain arrays, primitives)
 * in place, every level (an already frozen object is walked too, since
 * `Object.freeze` is shallow). Returns `true` when the whole value is
 * JSON-like and now immutable. Returns `false` as soon as it meets anything
 * else (a Date, Map, typed array, class instance, function, symbol, a cycle
 * or nesting deeper than 100): the value may then be partly frozen, and a
 * caller that must own an immutable value keeps a {@link cloneValue} copy
 * instead (and copies it again on the way out).
 */
export function deepFreeze(value: unknown): boolean {
  return freezeLevel(value, 0);
}

function freezeLevel(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function' && typeof value !== 'symbol';
  if (depth > MAX_DEPTH) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Array.prototype) {
    const array = value as unknown[];
    for (let i = 0; i < array.length; i++) if (!freezeLevel(array[i], depth + 1)) return false;
  } else if (proto === Object.prototype || proto === null) {
    const record = value as Record<string, unknown>;
    // for-in allocates no key array; the prototype is Object.prototype or null, so every key is own.
    for (const key in record) if (!freezeLevel(record[key], depth + 1)) return false;
  } else {
    return false;
  }
  if (!Object.isFrozen(value)) Object.freeze(value);
  return true;
}

/**
 * {@link deepFreeze} for a new version of a value: `previous` is an earlier
 * version that was deep-frozen (by this module) and that `value` shares
 * parts with. Wherever `value` holds the very object `previous` holds at the
 * same place, that part is known to be frozen all the way down and is not
 * walked again. An update of a task shares most of the previous one (its
 * history, other artifacts, and the parts of an artifact streamed chunk by
 * chunk), so freezing costs what changed rather than the whole task.
 */
export function deepFreezeAgainst(value: unknown, previous: unknown): boolean {
  return freezeAgainst(value, previous, 0);
}

function freezeAgainst(value: unknown, previous: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function' && typeof value !== 'symbol';
  if (value === previous) return true;
  if (typeof previous !== 'object' || previous === null) return freezeLevel(value, depth);
  if (depth > MAX_DEPTH) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  const before = previous as Record<string, unknown>;
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const old = Array.isArray(previous) ? (previous as unknown[]) : undefined;
    // An array made by `appended` from the previous version's: only the appended items are new (a streamed artifact's parts).
    const from = old !== undefined && old.length > 0 && extensions.get(array)?.deref() === old ? old.length : 0;
    for (let i = from; i < array.length; i++) if (!freezeAgainst(array[i], old?.[i], depth + 1)) return false;
  } else if (proto === Object.prototype || proto === null) {
    const record = value as Record<string, unknown>;
    // An own `__proto__` key of `previous` would read as its prototype: never compare against that.
    for (const key in record) if (!freezeAgainst(record[key], key === '__proto__' ? undefined : before[key], depth + 1)) return false;
  } else {
    return false;
  }
  if (!Object.isFrozen(value)) Object.freeze(value);
  return true;
}

/**
 * Arrays made by {@link appended}, with the array they extend, held weakly:
 * a strong reference would keep every earlier version of a streamed
 * artifact's parts alive as long as the newest (a chain of n arrays of up
 * to n items: quadratic memory).
 */
const extensions = new WeakMap<readonly unknown[], WeakRef<readonly unknown[]>>();

/**
 * `base` followed by `extra`, as a new array (`base.concat(extra)`, a copy
 * of references). {@link deepFreezeAgainst} then walks only `extra` when
 * `base` is what the previous version held at the same place: appending a
 * chunk to a streamed artifact costs the same at the 5,000th chunk as at the
 * first, apart from that copy of references.
 */
export function appended<T>(base: readonly T[], extra: readonly T[]): T[] {
  const out = base.concat(extra);
  extensions.set(out, new WeakRef(base));
  return out;
}

/**
 * A shallow copy of `value` with `fields` set on it: `{ ...value, ...fields }`
 * (same keys, same order), built with `Object.assign`. A spread of an object
 * parsed by zod gives every result a hidden class of its own, which makes
 * each later property read, `for...in` and freeze of it slower; this shares
 * one. `value` must be a plain object; an own `__proto__` key falls back to
 * the spread (assigning it would set the prototype).
 */
export function copyWith<T extends object, F extends Partial<T>>(value: T, fields: F): T & F {
  if (Object.hasOwn(value, '__proto__')) return { ...value, ...fields };
  return Object.assign(Object.assign({}, value), fields);
}
