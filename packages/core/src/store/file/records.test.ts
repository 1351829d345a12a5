import { describe, expect, it } from 'vitest';
import { crc32, crc32Portable } from './crc32.js';
import { commitPayload, deletePayload, headerPayload, LiveState, snapshotPayload, type CommitInput } from './records.js';

function commit(id: string, version: number, firstSequence: number, events: number, tag = ''): CommitInput {
  return {
    id,
    owner: 'o',
    version,
    firstSequence,
    task: JSON.stringify({ id, version, tag }),
    events: Array.from({ length: events }, (_, i) => JSON.stringify({ seq: firstSequence + i, tag })),
    fields: { id, contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00Z' } },
  };
}

function replay(payloads: string[], maxEvents = 100): LiveState {
  const state = new LiveState(maxEvents);
  for (const p of payloads) state.applyPayload(p);
  return state;
}

describe('log records', () => {
  it('replays commits and deletes into live tasks', () => {
    const state = replay([headerPayload(), commitPayload(commit('a', 1, 1, 2)), commitPayload(commit('a', 2, 3, 1)), commitPayload(commit('b', 1, 1, 0)), deletePayload('b')]);
    expect([...state.tasks.keys()]).toEqual(['a']);
    const a = state.tasks.get('a')!;
    expect(a).toMatchObject({ version: 2, lastSequence: 3, owner: 'o' });
    expect(a.events.map((e) => JSON.parse(e).seq)).toEqual([1, 2, 3]);
  });

  it('yields the same state when a snapshot overlaps the commits replayed after it', () => {
    const history = [
      commitPayload(commit('a', 1, 1, 2)),
      commitPayload(commit('a', 2, 3, 1)),
      commitPayload(commit('x', 1, 1, 1, 'old')),
      commitPayload(commit('a', 3, 4, 2)),
      deletePayload('x'),
      commitPayload(commit('x', 1, 1, 1, 'new')),
      commitPayload(commit('x', 2, 2, 1, 'new')),
    ];
    const truth = replay([headerPayload(), ...history]);
    // A snapshot taken at any moment during the tail (it may see any later state), then the whole tail.
    for (let start = 0; start <= history.length; start++) {
      for (let seen = start; seen <= history.length; seen++) {
        const at = replay([headerPayload(), ...history.slice(0, seen)]);
        const snapshot = [...at.tasks].map(([id, live]) => snapshotPayload(id, live));
        const before = replay([headerPayload(), ...history.slice(0, start)]);
        // Tasks the snapshot iterated before the tail started are at their `start` state.
        const mixed = [...snapshot, ...[...before.tasks].filter(([id]) => !at.tasks.has(id)).map(([id, l]) => snapshotPayload(id, l))];
        const state = replay([headerPayload(), ...mixed, ...history.slice(start)]);
        expect([...state.tasks.entries()].sort(), `start ${start} seen ${seen}`).toEqual([...truth.tasks.entries()].sort());
        expect(state.liveChars).toBe(truth.liveChars);
      }
    }
  });

  it('keeps the newest maxEvents events and counts their size', () => {
    const state = replay([headerPayload(), commitPayload(commit('a', 1, 1, 4)), commitPayload(commit('a', 2, 5, 3))], 3);
    const a = state.tasks.get('a')!;
    expect(a.events.map((e) => JSON.parse(e).seq)).toEqual([5, 6, 7]);
    expect(a.eventChars).toBe(a.events.reduce((n, e) => n + e.length, 0));
    const fresh = replay([headerPayload(), snapshotPayload('a', a)], 3);
    expect(fresh.liveChars).toBe(state.liveChars);
  });

  it('rejects an unknown format or record type', () => {
    expect(() => replay([JSON.stringify({ t: 'h', format: 99 })])).toThrow(/format 99/);
    expect(() => replay([headerPayload(), JSON.stringify({ t: 'q' })])).toThrow(/unknown record type/);
  });

  it('computes CRC-32 like zlib', () => {
    const data = new TextEncoder().encode('123456789');
    expect(crc32Portable(data)).toBe(0xcbf43926);
    expect(crc32(data)).toBe(0xcbf43926);
    expect(crc32Portable(new Uint8Array())).toBe(0);
  });
});
