import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Part, Task } from '../schema/index.js';
import { TaskSchema } from '../schema/index.js';
import type { LifecycleEvent, ReduceResult } from './reduce.js';
import { createTask, reduce } from './reduce.js';
import { WRK, STATES, TERMINAL_STATES, TERMINAL, ok, allowedChange, TASK_ID, CONTEXT_ID, T0, deepFreeze, userMessage, taskIn, artifactEvent, accepted } from './reduce-test-kit.js';
// ---------------------------------------------------------------------------
// Properties over random event sequences
// ---------------------------------------------------------------------------

// User and agent messageIds come from disjoint pools: a user message that
// reuses the *current* status message's id is a client bug the reducer does
// not detect (see the report), so it is kept out of the uniqueness property.
const userMessageIds = fc.constantFrom('u1', 'u2', 'u3', 'u4');
const agentMessageIds = fc.constantFrom('a1', 'a2', 'a3', 'a4');
const timestamps = fc
  .integer({ min: 0, max: 86_400 })
  .map((s) => new Date(Date.UTC(2025, 0, 1) + s * 1000).toISOString());
const parts: fc.Arbitrary<Part[]> = fc.array(
  fc.oneof(
    fc.string({ maxLength: 6 }).map((text) => ({ text })),
    fc.integer().map((n) => ({ data: { n } })),
  ),
  { minLength: 1, maxLength: 3 },
);
const ids = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ taskId: TASK_ID, contextId: CONTEXT_ID }) },
  { weight: 1, arbitrary: fc.constant({ taskId: 'task-other', contextId: CONTEXT_ID }) },
  { weight: 1, arbitrary: fc.constant({ taskId: TASK_ID, contextId: 'ctx-other' }) },
);

const messageEvents: fc.Arbitrary<LifecycleEvent> = fc.record(
  {
    message: fc.record({
      messageId: userMessageIds,
      role: fc.constantFrom('ROLE_USER', 'ROLE_USER', 'ROLE_USER', 'ROLE_AGENT'),
      parts,
    }),
    timestamp: timestamps,
  },
  { requiredKeys: ['message'] },
);
const statusEvents: fc.Arbitrary<LifecycleEvent> = fc
  .record({
    ids,
    status: fc.record(
      {
        state: fc.constantFrom(...STATES),
        message: fc.record({ messageId: agentMessageIds, role: fc.constant('ROLE_AGENT' as const), parts }),
        timestamp: timestamps,
      },
      { requiredKeys: ['state'] },
    ),
  })
  .map(({ ids, status }) => ({ statusUpdate: { ...ids, status } }));
const artifactEvents: fc.Arbitrary<LifecycleEvent> = fc
  .record({
    ids,
    artifact: fc.record(
      {
        artifactId: fc.constantFrom('x1', 'x2', 'x3'),
        name: fc.string({ maxLength: 4 }),
        parts,
        metadata: fc.dictionary(fc.constantFrom('k1', 'k2'), fc.integer()),
      },
      { requiredKeys: ['artifactId', 'parts'] },
    ),
    append: fc.boolean(),
    lastChunk: fc.boolean(),
  })
  .map(({ ids, ...rest }) => ({ artifactUpdate: { ...ids, ...rest } }));
const events = fc.oneof(
  { weight: 2, arbitrary: messageEvents },
  { weight: 4, arbitrary: statusEvents },
  { weight: 3, arbitrary: artifactEvents },
);

function startTask(): Task {
  return createTask(userMessage('u0', 'start'), { taskId: TASK_ID, contextId: CONTEXT_ID, timestamp: T0 });
}

function reduceSafely(task: Task, event: LifecycleEvent): ReduceResult {
  try {
    return reduce(task, event);
  } catch (error) {
    throw new Error(`reduce threw on ${task.status.state} + ${JSON.stringify(event)}: ${String(error)}`);
  }
}

describe('reduce: properties', () => {
  it('random event sequences from a submitted task keep every invariant', () => {
    fc.assert(
      fc.property(fc.array(events, { maxLength: 40 }), (sequence) => {
        let task = deepFreeze(startTask());
        for (const raw of sequence) {
          const event = deepFreeze(structuredClone(raw));
          const before = task;
          const snapshot = structuredClone(before);
          const result = reduceSafely(before, event);
          expect(before).toStrictEqual(snapshot);
          const from = before.status.state;

          if (TERMINAL.has(from)) {
            expect(result.ok).toBe(false);
            if (!result.ok) expect(result.error).toMatchObject({ code: 'TASK_TERMINAL', state: from });
            continue;
          }
          if (!result.ok) continue;

          const after = result.task;
          const to = after.status.state;
          if (result.duplicate) {
            expect(after).toBe(before);
          } else if ('statusUpdate' in event) {
            expect(allowedChange(from, to, 'status'), `${from} -> ${to} by a status update`).toBe(true);
            expect(after.status).toStrictEqual(event.statusUpdate.status);
          } else if ('message' in event) {
            expect(allowedChange(from, to, 'message'), `${from} -> ${to} by a user message`).toBe(true);
            expect(after.history?.at(-1)?.messageId).toBe(event.message.messageId);
          } else {
            expect(after.status).toBe(before.status);
            expect(after.history).toBe(before.history);
          }

          const historyIds = (after.history ?? []).map((m) => m.messageId);
          expect(new Set(historyIds).size, `history ids ${historyIds.join(',')}`).toBe(historyIds.length);
          const artifactIds = (after.artifacts ?? []).map((a) => a.artifactId);
          expect(new Set(artifactIds).size).toBe(artifactIds.length);
          // nothing leaves history
          expect(historyIds.slice(0, before.history?.length ?? 0)).toStrictEqual((before.history ?? []).map((m) => m.messageId));
          expect(TaskSchema.safeParse(after).success).toBe(true);

          task = deepFreeze(after);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('an appended artifact is the previous parts followed by the chunk parts', () => {
    fc.assert(
      fc.property(parts, fc.array(parts, { maxLength: 6 }), (first, chunks) => {
        let task: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: WRK } });
        task = accepted(reduce(task, artifactEvent({ artifactId: 'out', parts: first })));
        for (const [i, chunk] of chunks.entries()) {
          task = accepted(reduce(deepFreeze(task), artifactEvent({ artifactId: 'out', parts: chunk }, { append: true, lastChunk: i === chunks.length - 1 })));
        }
        expect(task.artifacts).toStrictEqual([{ artifactId: 'out', parts: [...first, ...chunks.flat()] }]);
      }),
    );
  });

  it('a terminal task refuses every event with TASK_TERMINAL', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TERMINAL_STATES), events, (state, raw) => {
        const task = taskIn(state);
        const result = reduceSafely(task, deepFreeze(structuredClone(raw)));
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error).toMatchObject({ code: 'TASK_TERMINAL', state });
      }),
    );
  });
});
