import { describe, expect, it } from 'vitest';
import { cloneValue, copyWith, deepFreeze, deepFreezeAgainst } from './clone.js';
import { MemoryTaskStore } from './store/memory-store.js';
import { commitOf, testTask } from './store/store-conformance-fixtures.js';

describe('cloneValue (the stores copy on the way in and out)', () => {
  it('copies JSON-like values deeply: equal, and sharing no object', () => {
    const value = { a: [1, { b: 'x', c: null, d: undefined }], e: { f: [true, 2.5] } };
    const copy = cloneValue(value);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
    expect(copy.e.f).not.toBe(value.e.f);
    expect('d' in (copy.a[1] as object)).toBe(true);
  });

  it('keeps an own __proto__ key as a key (JSON.parse makes them) without touching the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = cloneValue(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('copies what JSON cannot carry the way structuredClone does', () => {
    const when = new Date(0);
    const value = { when, map: new Map([['k', 1]]), bytes: new Uint8Array([1, 2]), bare: Object.assign(Object.create(null), { z: 1 }) };
    const copy = cloneValue(value);
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(0);
    expect(copy.map.get('k')).toBe(1);
    expect([...copy.bytes]).toEqual([1, 2]);
    expect(copy.bare).toEqual({ z: 1 });
  });

  it('copies cycles and very deep values through structuredClone', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const copy = cloneValue(cyclic);
    expect(copy.self).toBe(copy);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 500; i++) deep = { next: deep };
    expect(cloneValue(deep)).toEqual(deep);
  });

  it('throws DataCloneError for functions and symbols, like structuredClone', () => {
    expect(() => cloneValue({ f: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    expect(() => cloneValue([Symbol('s')])).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });
});

describe('deepFreeze (the memory store freezes instead of copying)', () => {
  it('freezes a JSON-like value at every level, in place, including levels already frozen on top', () => {
    const inner = { c: [1, { d: 'x' }] };
    const value = Object.freeze({ a: { b: inner } });
    expect(deepFreeze(value)).toBe(true);
    expect([value.a, inner, inner.c, inner.c[1]].every((v) => Object.isFrozen(v))).toBe(true);
  });

  it('answers false for what is not JSON-like: class instances, functions, symbols, cycles', () => {
    expect(deepFreeze({ when: new Date(0) })).toBe(false);
    expect(deepFreeze({ f: () => 1 })).toBe(false);
    expect(deepFreeze([Symbol('s')])).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(deepFreeze(cyclic)).toBe(false);
  });
});

describe('deepFreezeAgainst (a new version freezes only what it does not share)', () => {
  const previous = () => {
    const value = { history: [{ text: 'a' }, { text: 'b' }], artifact: { parts: [{ text: 'one' }] } };
    expect(deepFreeze(value)).toBe(true);
    return value;
  };

  it('freezes every new part of the new version deeply, and leaves the shared parts as they were', () => {
    const old = previous();
    const next = { history: old.history, artifact: { parts: [...old.artifact.parts, { text: 'two', meta: { deep: [1] } }] } };
    expect(deepFreezeAgainst(next, old)).toBe(true);
    expect(next.history).toBe(old.history);
    expect([Object.isFrozen(next), Object.isFrozen(next.artifact), Object.isFrozen(next.artifact.parts)]).toEqual([true, true, true]);
    const added = next.artifact.parts[1] as { meta: { deep: number[] } };
    expect([Object.isFrozen(added), Object.isFrozen(added.meta), Object.isFrozen(added.meta.deep)]).toEqual([true, true, true]);
  });

  it('walks an object that only looks like the old one (equal, not the same)', () => {
    const old = previous();
    const next = { history: [{ text: 'a' }, { text: 'b' }], artifact: old.artifact };
    expect(deepFreezeAgainst(next, old)).toBe(true);
    expect(next.history.every((m) => Object.isFrozen(m))).toBe(true);
  });

  it('answers false for a new part that is not JSON-like, as deepFreeze does', () => {
    const old = previous();
    expect(deepFreezeAgainst({ history: old.history, artifact: { parts: [new Date(0)] } }, old)).toBe(false);
    expect(deepFreezeAgainst({ history: old.history, fn: () => 1 }, old)).toBe(false);
  });

  it('never takes the prototype of the old version for a value under an own __proto__ key', () => {
    const old = JSON.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(deepFreeze(old)).toBe(true);
    const inner = { y: [2] };
    const next = JSON.parse('{"__proto__": null}') as Record<string, unknown>;
    Object.defineProperty(next, '__proto__', { value: inner, enumerable: true });
    expect(deepFreezeAgainst(next, old)).toBe(true);
    expect(Object.isFrozen(inner.y)).toBe(true);
  });
});

describe('copyWith', () => {
  it('is { ...value, ...fields }: same keys in the same order, value untouched', () => {
    const value = { a: 1, taskId: 'old', b: 2 };
    const copy = copyWith(value, { taskId: 'new', contextId: 'c' });
    expect(Object.entries(copy)).toEqual([['a', 1], ['taskId', 'new'], ['b', 2], ['contextId', 'c']]);
    expect(value.taskId).toBe('old');
  });

  it('keeps an own __proto__ key a key, never the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = copyWith(value, { b: 2 });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a', 'b']);
  });
});

describe('MemoryTaskStore eviction over a long run', () => {
  it('stays at maxTasks, evicting the least recently finished first, across deletes and re-commits', async () => {
    const store = new MemoryTaskStore({ maxTasks: 50 });
    for (let i = 0; i < 5_000; i++) {
      await store.commit(commitOf(testTask(`t${i}`, { state: 'TASK_STATE_COMPLETED', at: i })));
      if (i % 7 === 0) await store.delete(`t${i - 3}`);
      expect(store.size).toBeLessThanOrEqual(50);
    }
    // Re-committing an old survivor makes it the most recently updated one.
    const survivor = (await store.list({ owner: 'alice', pageSize: 100 })).tasks.at(-1)!.id;
    const current = await store.get(survivor);
    await store.commit(commitOf(testTask(survivor, { state: 'TASK_STATE_COMPLETED', at: 9_999 }), current!.version));
    for (let i = 5_000; i < 5_049; i++) await store.commit(commitOf(testTask(`t${i}`, { state: 'TASK_STATE_COMPLETED', at: i })));
    expect(await store.get(survivor)).toBeDefined();
    expect(store.size).toBe(50);
    const ids = (await store.list({ owner: 'alice', pageSize: 100 })).tasks.map((t) => t.id);
    expect(ids).toContain(survivor);
    expect(ids).toContain('t5048');
    expect(ids).not.toContain('t4950');
  });
});
