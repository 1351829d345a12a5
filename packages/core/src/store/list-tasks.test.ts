import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A2AError } from '../errors.js';
import type { Task } from '../schema/task.js';
import { decodePageToken, encodePageToken, projectTask, TaskListIndex, timestampSortKey } from './list-tasks.js';
import { testTask, testTimestamp } from './store-conformance-fixtures.js';

describe('timestampSortKey', () => {
  it('orders timestamps of any precision like the instants they name', () => {
    const stamps = ['2025-01-01T00:00:05Z', '2025-01-01T00:00:05.5Z', '2025-01-01T00:00:05.000000001Z', '2025-01-01T00:00:04.999999Z', '2024-12-31T23:59:59.9Z'];
    const sorted = [...stamps].sort((a, b) => (timestampSortKey(a) < timestampSortKey(b) ? -1 : 1));
    expect(sorted).toEqual(['2024-12-31T23:59:59.9Z', '2025-01-01T00:00:04.999999Z', '2025-01-01T00:00:05Z', '2025-01-01T00:00:05.000000001Z', '2025-01-01T00:00:05.5Z']);
    expect(timestampSortKey('2025-01-01T00:00:05Z')).toBe(timestampSortKey('2025-01-01T00:00:05.000Z'));
  });
  it('normalises offsets and sorts missing or unparseable timestamps first', () => {
    expect(timestampSortKey('2025-01-01T01:00:00+01:00')).toBe(timestampSortKey('2025-01-01T00:00:00Z'));
    expect(timestampSortKey(undefined)).toBe('');
    expect(timestampSortKey('yesterday')).toBe('');
  });
});

describe('page tokens', () => {
  it('round-trip any key and id, unicode included', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(253402300799000) }), fc.string({ unit: 'grapheme' }), (date, id) => {
        const cursor = { key: timestampSortKey(date.toISOString()), id };
        expect(decodePageToken(encodePageToken(cursor))).toEqual(cursor);
      }),
    );
  });
  it('are URL-safe', () => {
    expect(encodePageToken({ key: timestampSortKey('2025-01-01T00:00:00Z'), id: '???>>>~~~ü' })).toMatch(/^[A-Za-z0-9_-]+$/);
  });
  it('reject anything else with InvalidParams', () => {
    for (const token of ['', '!!', 'eyJ9', encodePageToken({ key: 'not-a-key', id: 'x' })]) {
      const error = (() => {
        try {
          decodePageToken(token);
        } catch (e) {
          return e;
        }
      })();
      expect(A2AError.is(error) && error.kind, token).toBe('InvalidParams');
    }
  });
});

describe('projectTask', () => {
  it('keeps, trims or omits history and artifacts without touching the input', () => {
    const task = testTask('t', { history: 4, artifacts: 2 });
    const before = structuredClone(task);
    expect(projectTask(task, {})).toEqual({ ...task, artifacts: undefined });
    expect(projectTask(task, {})).not.toHaveProperty('artifacts');
    expect(projectTask(task, { historyLength: 0, includeArtifacts: true })).toEqual({ ...task, history: undefined });
    expect(projectTask(task, { historyLength: 0 })).not.toHaveProperty('history');
    expect(projectTask(task, { historyLength: 3, includeArtifacts: true }).history!.map((m) => m.messageId)).toEqual(['m1', 'm2', 'm3']);
    expect(projectTask(task, { historyLength: 9, includeArtifacts: true })).toEqual(task);
    expect(task).toEqual(before);
  });
});

describe('TaskListIndex', () => {
  const load = (tasks: Map<string, Task>) => (id: string) => tasks.get(id)!;

  it('keeps every owner sorted through inserts, moves and deletes (against a full sort)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -1, max: 20 }), fc.constantFrom('a', 'b'), fc.boolean()), { maxLength: 200 }),
        (ops) => {
          const index = new TaskListIndex();
          const tasks = new Map<string, Task>();
          const owners = new Map<string, string>();
          for (const [n, at, owner, remove] of ops) {
            const id = `t${n}`;
            if (remove) {
              expect(index.delete(id)).toBe(tasks.delete(id));
              owners.delete(id);
            } else {
              const task = testTask(id, { at: at < 0 ? null : at });
              const taskOwner = owners.get(id) ?? owner;
              tasks.set(id, task);
              owners.set(id, taskOwner);
              index.set(taskOwner, task);
            }
          }
          for (const owner of ['a', 'b']) {
            const expected = [...tasks.values()]
              .filter((t) => owners.get(t.id) === owner)
              .sort((x, y) => {
                const kx = timestampSortKey(x.status.timestamp);
                const ky = timestampSortKey(y.status.timestamp);
                return kx === ky ? (x.id < y.id ? 1 : -1) : kx < ky ? 1 : -1;
              })
              .map((t) => t.id);
            const got: string[] = [];
            let pageToken: string | undefined;
            do {
              const page = index.query({ owner, pageSize: 7, pageToken }, load(tasks));
              expect(page.totalSize).toBe(expected.length);
              got.push(...page.tasks.map((t) => t.id));
              pageToken = page.nextPageToken || undefined;
            } while (pageToken);
            expect(got).toEqual(expected);
          }
        },
      ),
    );
  });

  it('answers every filter from its own list, in order, through moves between contexts and states (against a full filter and sort)', () => {
    const states = ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'] as const;
    // Two busy contexts, and rarer ones that hold a single task (kept as its entry alone) or gain and lose a second.
    const contexts = ['c1', 'c2', 'c1', 'c2', 'c3', 'c4', 'c5'] as const;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 9 }), fc.constantFrom(...contexts), fc.constantFrom(...states), fc.boolean()), { maxLength: 150 }),
        (ops) => {
          const index = new TaskListIndex();
          const tasks = new Map<string, Task>();
          for (const [n, at, contextId, state, remove] of ops) {
            const id = `t${n}`;
            if (remove) {
              expect(index.delete(id)).toBe(tasks.delete(id));
            } else {
              const task = testTask(id, { at, contextId, state });
              tasks.set(id, task);
              index.set('o', task);
            }
          }
          for (const contextId of [undefined, 'c1', 'c2', 'c3', 'c4', 'c5']) {
            for (const status of [undefined, ...states]) {
              for (const statusTimestampAfter of [undefined, testTimestamp(4)]) {
                const expected = [...tasks.values()]
                  .filter((t) => (contextId === undefined || t.contextId === contextId) && (status === undefined || t.status.state === status))
                  .filter((t) => statusTimestampAfter === undefined || t.status.timestamp! >= statusTimestampAfter)
                  .sort((x, y) => (x.status.timestamp === y.status.timestamp ? (x.id < y.id ? 1 : -1) : x.status.timestamp! < y.status.timestamp! ? 1 : -1))
                  .map((t) => t.id);
                const got: string[] = [];
                let pageToken: string | undefined;
                do {
                  const page = index.query({ owner: 'o', contextId, status, statusTimestampAfter, pageSize: 3, pageToken }, load(tasks));
                  expect(page.totalSize).toBe(expected.length);
                  got.push(...page.tasks.map((t) => t.id));
                  pageToken = page.nextPageToken || undefined;
                } while (pageToken);
                expect(got).toEqual(expected);
              }
            }
          }
        },
      ),
    );
  });

  it('looks at no more entries than the page returns, whatever the owner holds beside the filter', () => {
    const probe = { visited: 0 };
    const index = new TaskListIndex(probe);
    const tasks = new Map<string, Task>();
    for (let i = 0; i < 2000; i++) {
      const task = testTask(`t${i}`, { at: i, contextId: i % 100 ? 'busy' : 'rare', state: i % 200 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING' });
      tasks.set(task.id, task);
      index.set('o', task);
    }
    const queries = [{ contextId: 'rare' }, { status: 'TASK_STATE_WORKING' as const }, { contextId: 'rare', status: 'TASK_STATE_WORKING' as const }, {}];
    for (const filter of queries) {
      probe.visited = 0;
      const page = index.query({ owner: 'o', pageSize: 5, ...filter }, load(tasks));
      expect({ filter, visited: probe.visited }).toEqual({ filter, visited: page.tasks.length });
    }
    probe.visited = 0;
    const deep = index.query({ owner: 'o', contextId: 'rare', pageSize: 5, statusTimestampAfter: testTimestamp(0), pageToken: encodePageToken({ key: timestampSortKey(testTimestamp(1500)), id: 't1500' }) }, load(tasks));
    expect(deep.totalSize).toBe(20);
    expect(probe.visited).toBe(5);
  });

  it('loads in bulk the same as one by one', () => {
    const tasks = new Map(Array.from({ length: 50 }, (_, i) => [`t${i}`, testTask(`t${i}`, { at: i % 7 })] as const));
    const bulk = new TaskListIndex();
    bulk.load([...tasks.values()].map((task) => ({ owner: 'o', task })));
    const single = new TaskListIndex();
    for (const task of tasks.values()) single.set('o', task);
    expect(bulk.query({ owner: 'o', pageSize: 100 }, load(tasks))).toEqual(single.query({ owner: 'o', pageSize: 100 }, load(tasks)));
    expect(bulk.size).toBe(50);
  });

  it('clamps pageSize to 1..100 and rejects a bad statusTimestampAfter', () => {
    const tasks = new Map(Array.from({ length: 120 }, (_, i) => [`t${i}`, testTask(`t${i}`, { at: i })] as const));
    const index = new TaskListIndex();
    for (const task of tasks.values()) index.set('o', task);
    expect(index.query({ owner: 'o', pageSize: 500 }, load(tasks)).tasks).toHaveLength(100);
    expect(index.query({ owner: 'o', pageSize: 0 }, load(tasks)).tasks).toHaveLength(1);
    expect(() => index.query({ owner: 'o', statusTimestampAfter: 'soon' }, load(tasks))).toThrow(/statusTimestampAfter/);
  });
});
