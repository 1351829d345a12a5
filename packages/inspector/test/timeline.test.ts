// The timeline's gap and duplicate flags, on events as a transport yields them.
import type { StreamResponse } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { Timeline } from '../src/timeline.js';

const status = (state: string): StreamResponse =>
  ({ statusUpdate: { taskId: 't', contextId: 'c', status: { state } } }) as StreamResponse;

describe('Timeline', () => {
  it('numbers events as they arrive, flags a skipped sequence as a gap and a repeated one as a duplicate', () => {
    const timeline = new Timeline();
    const entries = [1, 2, 4, 4, 3, 5].map((sequence) => timeline.add({ sequence, response: status('TASK_STATE_WORKING') }));
    expect(entries.map((e) => [e.index, e.sequence, e.flags])).toEqual([
      [1, 1, []],
      [2, 2, []],
      [3, 4, ['gap']],
      [4, 4, ['duplicate']],
      [5, 3, ['duplicate']],
      [6, 5, []],
    ]);
    expect(entries[0]).toMatchObject({ kind: 'statusUpdate', state: 'TASK_STATE_WORKING' });
    expect(entries.map((e) => e.atMs)).toEqual([...entries.map((e) => e.atMs)].sort((a, b) => a - b));
  });

  it('flags nothing for an agent that numbers no events (sequence 0)', () => {
    const timeline = new Timeline();
    const entries = [0, 0, 0].map((sequence) => timeline.add({ sequence, response: status('TASK_STATE_WORKING') }));
    expect(entries.map((e) => e.flags)).toEqual([[], [], []]);
  });
});
