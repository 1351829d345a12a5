import { describe, expect, it } from 'vitest';
import { artifact } from '../agent/events.js';
import { reduce } from '../lifecycle/index.js';
import { accepted, taskIn, WRK } from '../lifecycle/reduce-test-kit.js';
import type { Task } from '../schema/index.js';
import type { ArtifactChunk } from './chunk-merge.js';
import { mergeChunks } from './chunk-merge.js';

const applied = (task: Task, chunk: ArtifactChunk) =>
  accepted(reduce(task, { artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact: chunk.artifact, append: chunk.append, lastChunk: chunk.lastChunk } }));

const chunk = (...args: Parameters<typeof artifact>) => artifact(...args) as ArtifactChunk;

describe('mergeChunks', () => {
  const chunks = [
    chunk({ artifactId: 'art-1', name: 'answer', text: 'Hel', metadata: { a: 1, b: 1 } }, { coalesce: true }),
    chunk({ artifactId: 'art-1', text: 'lo' }, { append: true, coalesce: true, metadata: { step: 1 } }),
    chunk({ artifactId: 'art-1', parts: [{ data: { n: 1 } }, { text: ' wor' }], metadata: { b: 2 } }, { append: true, coalesce: true }),
    chunk({ artifactId: 'art-1', parts: [{ text: 'ld', mediaType: 'text/plain' }, { text: '!', mediaType: 'text/plain' }, { text: '?', filename: 'q.txt' }] }, { append: true, coalesce: true }),
    chunk({ artifactId: 'art-1', name: 'final', text: '' }, { append: true, lastChunk: true, coalesce: true, metadata: { step: 2, usage: 3 } }),
  ];

  it('gives the task the artifact the chunks give one by one, adjacent plain text parts joined', () => {
    const merged = mergeChunks(chunks);
    const one = applied(taskIn(WRK), merged).artifacts!;
    const each = chunks.reduce(applied, taskIn(WRK)).artifacts!;
    const { parts, ...fields } = one[0]!;
    const { parts: eachParts, ...eachFields } = each[0]!;
    expect(fields).toEqual(eachFields);
    expect(fields).toEqual({ artifactId: 'art-1', name: 'final', metadata: { a: 1, b: 2 } });
    expect(parts).toEqual([{ text: 'Hello' }, { data: { n: 1 } }, { text: ' wor' }, { text: 'ld!', mediaType: 'text/plain' }, { text: '?', filename: 'q.txt' }, { text: '' }]);
    const text = (ps: typeof parts) => ps.map((p) => ('text' in p ? p.text : '|')).join('');
    expect(text(parts)).toBe(text(eachParts));
    expect(one.slice(1)).toEqual(each.slice(1));
  });

  it('keeps the first chunk\'s append, the last one\'s lastChunk, and merges the events\' metadata (later keys win)', () => {
    const merged = mergeChunks(chunks);
    expect([merged.append, merged.lastChunk, merged.metadata]).toEqual([undefined, true, { step: 2, usage: 3 }]);
    expect(mergeChunks(chunks.slice(1, 3))).toMatchObject({ append: true, lastChunk: undefined, metadata: { step: 1 } });
    expect(mergeChunks([chunks[1]!])).toBe(chunks[1]);
  });

  it('leaves the chunks as they were', () => {
    const before = JSON.stringify(chunks);
    mergeChunks(chunks);
    expect(JSON.stringify(chunks)).toBe(before);
  });
});
