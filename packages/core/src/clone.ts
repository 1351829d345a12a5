import { lazyLink } from './lazy-append.js';

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
    for (let i = 0; i < array.length; i++) if (!freezeAgainst(array[i], old?.[i], depth + 1)) return false;
  } else if (proto === Object.prototype || proto === null) {
    const record = value as Record<string, unknown>;
    const link = lazyLink(record);
    for (const key in record) {
      // A property still to be built from appended items (a streamed artifact's parts): its new items are frozen below.
      if (link !== undefined && key === link.key) continue;
      // An own `__proto__` key of `previous` would read as its prototype: never compare against that.
      if (!freezeAgainst(record[key], key === '__proto__' ? undefined : before[key], depth + 1)) return false;
    }
    if (link !== undefined && !freezeAppended(link, previous, depth + 1)) return false;
  } else {
    return false;
  }
  if (!Object.isFrozen(value)) Object.freeze(value);
  return true;
}

/**
 * Freezes what a property made by `defineAppended` holds without building
 * it: the items each version in its chain appends, back to `previous` (the
 * earlier version at the same place, frozen all the way down, whose items
 * come first) or, when the chain does not lead there, back to an object
 * whose property is then walked whole. So the n-th chunk of a streamed
 * artifact costs what the first did.
 */
function freezeAppended(link: NonNullable<ReturnType<typeof lazyLink>>, previous: unknown, depth: number): boolean {
  for (let node = link; ; ) {
    if (!freezeLevel(node.extra, depth)) return false;
    if (node.previous === previous) return true;
    const next = lazyLink(node.previous);
    if (next === undefined || next.key !== link.key) return freezeLevel((node.previous as Record<string, unknown>)[link.key], depth);
    node = next;
  }
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
