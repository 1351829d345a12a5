import { describe, expect, it } from 'vitest';
import { deepFreeze, deepFreezeAgainst } from './clone.js';
import { buildAppended, defineAppended, lazyLink } from './lazy-append.js';

interface Holder {
  name?: string;
  items: { n: number }[];
  after?: boolean;
}

/** `count` versions of a holder, each appending one item to the one before. */
function versions(first: Holder, count: number): Holder[] {
  const out = [first];
  for (let i = 1; i <= count; i++) out.push(defineAppended({ name: 'v', items: undefined as never, after: true } as Holder, 'items', out.at(-1)!, [{ n: i }]));
  return out;
}

describe('defineAppended (an appended array built on first read)', () => {
  it('reads as the previous array followed by the extra items, the same array every time, in the key\'s place', () => {
    const all = versions({ items: [{ n: 0 }] }, 3);
    const last = all[3]!;
    expect(lazyLink(last)).toBeDefined();
    expect(last.items).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    expect(last.items).toBe(last.items);
    expect(lazyLink(last)).toBeUndefined();
    expect(Object.keys(last)).toEqual(['name', 'items', 'after']);
    expect(JSON.parse(JSON.stringify(last))).toEqual({ name: 'v', items: [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }], after: true });
    // Each version reads as itself; a later build reuses an earlier one's array.
    expect(all[1]!.items).toEqual([{ n: 0 }, { n: 1 }]);
    expect(all[2]!.items).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });

  it('deepFreezeAgainst freezes a new version against the one it extends without building it; a read then gives a frozen array', () => {
    const all = versions({ items: [{ n: 0 }] }, 3);
    expect(deepFreeze(all[1])).toBe(true);
    // Two versions at once (a grouped commit): the chain back to the frozen one is walked, not the items before it.
    expect(deepFreezeAgainst(all[3], all[1])).toBe(true);
    expect(lazyLink(all[3]!)).toBeDefined();
    expect(Object.isFrozen(all[3])).toBe(true);
    const items = all[3]!.items;
    expect(Object.isFrozen(items) && items.every((item) => Object.isFrozen(item))).toBe(true);
    expect(() => items.push({ n: 4 })).toThrow(TypeError);
  });

  it('deepFreezeAgainst freezes the whole array when the chain does not lead to the previous version', () => {
    const base: Holder = { items: [{ n: 0 }] };
    const all = versions(base, 2);
    expect(deepFreezeAgainst(all[2], { items: [] })).toBe(true);
    expect(Object.isFrozen(base.items[0])).toBe(true);
    expect(Object.isFrozen(all[2]!.items)).toBe(true);
  });

  it('buildAppended builds each lazy array once and leaves other objects alone', () => {
    const all = versions({ items: [{ n: 0 }] }, 2);
    const plain = { items: [{ n: 9 }] };
    buildAppended([all[2]!, plain]);
    expect(lazyLink(all[2]!)).toBeUndefined();
    expect(all[2]!.items).toHaveLength(3);
    expect(plain.items).toEqual([{ n: 9 }]);
  });
});
