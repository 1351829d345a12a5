import { describe, expect, it } from 'vitest';
import type { Artifact, Task, TaskState } from '../schema/index.js';
import { TaskSchema } from '../schema/index.js';
import { createTask, reduce } from './reduce.js';
import { SUB, WRK, INP, AUT, CMP, STATES, LIVE_STATES, EVENT_KINDS, ok, expectedOutcome, TASK_ID, CONTEXT_ID, T0, T1, deepFreeze, userMessage, agentMessage, FIRST, QUESTION, DRAFT, taskIn, statusEvent, artifactEvent, REPLY, NEW_ARTIFACT, CHUNK_2, UNKNOWN_CHUNK, eventFor, expectedTask, expectedError, accepted, refused } from './reduce-test-kit.js';
// Every (state, event) pair
// ---------------------------------------------------------------------------

describe('reduce: every state x every event', () => {
  const cases = STATES.flatMap((state) =>
    EVENT_KINDS.map((kind) => ({ state, kind, outcome: expectedOutcome(state, kind) })),
  );

  it('the table covers all 8 states x 13 events', () => {
    expect(cases).toHaveLength(8 * 13);
  });

  it.each(cases)('$state + $kind -> $outcome', ({ state, kind, outcome }) => {
    const task = taskIn(state);
    const snapshot = structuredClone(task);
    const result = reduce(task, eventFor(kind));
    if (outcome === ok) {
      expect(result).toStrictEqual({ ok: true, task: expectedTask(state, kind), duplicate: false });
    } else {
      const error = refused(result);
      expect(error).toMatchObject(expectedError(state, kind, outcome));
      expect(error.message).toMatch(/\S/);
    }
    expect(task).toStrictEqual(snapshot);
  });
});

// ---------------------------------------------------------------------------
// The rules, one by one
// ---------------------------------------------------------------------------

describe('reduce: status messages and history', () => {
  it('moves each outgoing status message into history exactly once', () => {
    let task: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: SUB }, history: [FIRST] });
    const m1 = agentMessage('m1', 'starting');
    const m2 = agentMessage('m2', 'half way');
    task = accepted(reduce(task, statusEvent(WRK, m1)));
    expect(task.history).toStrictEqual([FIRST]);
    task = accepted(reduce(task, statusEvent(WRK, m2)));
    expect(task.history).toStrictEqual([FIRST, m1]);
    // the same status message reported again (a repeated progress update)
    task = accepted(reduce(task, statusEvent(WRK, m2)));
    expect(task.history).toStrictEqual([FIRST, m1, m2]);
    task = accepted(reduce(task, statusEvent(CMP)));
    expect(task.history).toStrictEqual([FIRST, m1, m2]);
    expect(task.status).toStrictEqual({ state: CMP, timestamp: T1 });
  });

  it('does not add history to a task that had neither history nor a status message', () => {
    const task: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: SUB } });
    const next = accepted(reduce(task, statusEvent(WRK)));
    expect(next).toStrictEqual({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: WRK, timestamp: T1 } });
  });

  it('creates history for a task without one when its status message moves out', () => {
    const task: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: WRK, message: QUESTION } });
    expect(accepted(reduce(task, statusEvent(INP))).history).toStrictEqual([QUESTION]);
  });

  it('does not copy a status message that history already holds', () => {
    const task: Task = deepFreeze({ ...taskIn(WRK), history: [FIRST, QUESTION] });
    expect(accepted(reduce(task, statusEvent(CMP))).history).toStrictEqual([FIRST, QUESTION]);
  });

  it('shares the history, uncopied, when no status message moves (a status update costs the same at any history length)', () => {
    const task: Task = deepFreeze({ ...taskIn(WRK), history: [FIRST, QUESTION] });
    expect(accepted(reduce(task, statusEvent(WRK))).history).toBe(task.history);
  });
});

describe('reduce: continuing an interrupted task', () => {
  it.each<TaskState>([INP, AUT])('%s: the question moves into history, then the stamped user message; state submitted', (state) => {
    const task = taskIn(state);
    const next = accepted(reduce(task, deepFreeze({ message: REPLY, timestamp: T1 })));
    expect(next.status).toStrictEqual({ state: SUB, timestamp: T1 });
    expect(next.history).toStrictEqual([FIRST, QUESTION, { ...REPLY, taskId: TASK_ID, contextId: CONTEXT_ID }]);
    expect(next.artifacts).toStrictEqual([DRAFT]);
    expect(next.metadata).toStrictEqual({ origin: 'test' });
  });

  it('keeps the previous status timestamp when the event has none', () => {
    const next = accepted(reduce(taskIn(INP), deepFreeze({ message: REPLY })));
    expect(next.status).toStrictEqual({ state: SUB, timestamp: T0 });
  });

  it('leaves the status without a timestamp when neither the event nor the task has one', () => {
    const task: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: INP, message: QUESTION } });
    const next = accepted(reduce(task, deepFreeze({ message: REPLY })));
    expect(next.status).toStrictEqual({ state: SUB });
    expect(next.history).toStrictEqual([QUESTION, { ...REPLY, taskId: TASK_ID, contextId: CONTEXT_ID }]);
  });

  it('accepts a message that already names this task and context', () => {
    const reply = userMessage('reply', 'instagram', { taskId: TASK_ID, contextId: CONTEXT_ID });
    const next = accepted(reduce(taskIn(INP), deepFreeze({ message: reply, timestamp: T1 })));
    expect(next.history?.at(-1)).toStrictEqual(reply);
  });

  it('keeps the message content, metadata and references when stamping it', () => {
    const reply = userMessage('reply', 'instagram', {
      metadata: { via: 'cli' },
      extensions: ['https://example.com/ext/v1'],
      referenceTaskIds: ['task-0'],
    });
    const next = accepted(reduce(taskIn(AUT), deepFreeze({ message: reply, timestamp: T1 })));
    expect(next.history?.at(-1)).toStrictEqual({ ...reply, taskId: TASK_ID, contextId: CONTEXT_ID });
  });

  it('refuses an agent-role message with WRONG_ROLE, in any non-terminal state', () => {
    for (const state of LIVE_STATES) {
      const error = refused(reduce(taskIn(state), deepFreeze({ message: { ...REPLY, role: 'ROLE_AGENT' as const } })));
      expect(error.code).toBe('WRONG_ROLE');
    }
  });
});

describe('reduce: duplicates', () => {
  it('a re-sent user messageId is a duplicate and the task is returned unchanged', () => {
    const task: Task = deepFreeze({ ...taskIn(INP), history: [FIRST, { ...REPLY, taskId: TASK_ID, contextId: CONTEXT_ID }] });
    const result = reduce(task, deepFreeze({ message: REPLY, timestamp: T1 }));
    expect(result).toStrictEqual({ ok: true, task, duplicate: true });
    if (result.ok) expect(result.task).toBe(task);
  });

  it('re-sending the message that resumed a task is a duplicate, not NOT_AWAITING_INPUT', () => {
    const resumed = accepted(reduce(taskIn(INP), deepFreeze({ message: REPLY, timestamp: T1 })));
    expect(resumed.status.state).toBe(SUB);
    const again = reduce(deepFreeze(resumed), deepFreeze({ message: REPLY, timestamp: T1 }));
    expect(again).toStrictEqual({ ok: true, task: resumed, duplicate: true });
  });

  it('the first message of a task, re-sent, is a duplicate even while working', () => {
    const result = reduce(taskIn(WRK), deepFreeze({ message: FIRST }));
    expect(result).toMatchObject({ ok: true, duplicate: true });
  });

  it('a terminal task refuses even a duplicate', () => {
    expect(refused(reduce(taskIn(CMP), deepFreeze({ message: FIRST }))).code).toBe('TASK_TERMINAL');
  });
});

describe('reduce: events naming another task', () => {
  const otherTask = { taskId: 'task-2', contextId: CONTEXT_ID };
  const otherContext = { taskId: TASK_ID, contextId: 'ctx-2' };

  it.each([
    ['status update, other task', statusEvent(WRK, undefined, otherTask)],
    ['status update, other context', statusEvent(WRK, undefined, otherContext)],
    ['artifact update, other task', artifactEvent(NEW_ARTIFACT, {}, otherTask)],
    ['artifact update, other context', artifactEvent(NEW_ARTIFACT, {}, otherContext)],
    ['appending artifact update, other task', artifactEvent(CHUNK_2, { append: true }, otherTask)],
    ['user message, other task', deepFreeze({ message: userMessage('reply', 'x', { taskId: 'task-2' }) })],
    ['user message, other context', deepFreeze({ message: userMessage('reply', 'x', { contextId: 'ctx-2' }) })],
  ] as const)('%s -> WRONG_TASK', (_name, event) => {
    for (const state of LIVE_STATES) {
      const error = refused(reduce(taskIn(state), event));
      expect(error.code).toBe('WRONG_TASK');
      expect(error.message).toContain(TASK_ID);
    }
  });
});

describe('reduce: artifacts', () => {
  const task = (artifacts: Artifact[]): Task =>
    deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: WRK }, artifacts });

  it('appends chunks in order, merging metadata (later keys win) and keeping the name', () => {
    let current = task([]);
    current = accepted(reduce(current, artifactEvent({ artifactId: 'out', name: 'output', parts: [{ text: 'a' }], metadata: { n: 1, first: true } })));
    current = accepted(reduce(current, artifactEvent({ artifactId: 'out', parts: [{ text: 'b' }, { text: 'c' }], metadata: { n: 2 } }, { append: true })));
    current = accepted(
      reduce(current, artifactEvent({ artifactId: 'out', parts: [{ url: 'https://x.example/d', mediaType: 'text/plain' }] }, { append: true, lastChunk: true })),
    );
    expect(current.artifacts).toStrictEqual([
      {
        artifactId: 'out',
        name: 'output',
        parts: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { url: 'https://x.example/d', mediaType: 'text/plain' }],
        metadata: { n: 2, first: true },
      },
    ]);
  });

  it('adds no metadata key when neither chunk has metadata', () => {
    let current = task([{ artifactId: 'out', parts: [{ text: 'a' }] }]);
    current = accepted(reduce(current, artifactEvent({ artifactId: 'out', parts: [{ text: 'b' }] }, { append: true })));
    expect(current.artifacts).toStrictEqual([{ artifactId: 'out', parts: [{ text: 'a' }, { text: 'b' }] }]);
  });

  it('appends only to the artifact with that id, keeping the others and their order', () => {
    const a: Artifact = { artifactId: 'a', parts: [{ text: 'a1' }] };
    const b: Artifact = { artifactId: 'b', parts: [{ text: 'b1' }] };
    const c: Artifact = { artifactId: 'c', parts: [{ text: 'c1' }] };
    const next = accepted(reduce(task([a, b, c]), artifactEvent({ artifactId: 'b', parts: [{ text: 'b2' }] }, { append: true })));
    expect(next.artifacts).toStrictEqual([a, { artifactId: 'b', parts: [{ text: 'b1' }, { text: 'b2' }] }, c]);
  });

  it('replaces an artifact in place when append is false or absent', () => {
    const a: Artifact = { artifactId: 'a', parts: [{ text: 'a1' }] };
    const b: Artifact = { artifactId: 'b', parts: [{ text: 'b1' }], metadata: { old: true } };
    const c: Artifact = { artifactId: 'c', parts: [{ text: 'c1' }] };
    const b2: Artifact = { artifactId: 'b', parts: [{ text: 'new' }] };
    expect(accepted(reduce(task([a, b, c]), artifactEvent(b2))).artifacts).toStrictEqual([a, b2, c]);
    expect(accepted(reduce(task([a, b, c]), artifactEvent(b2, { append: false }))).artifacts).toStrictEqual([a, b2, c]);
  });

  it('adds a first artifact to a task without an artifacts list', () => {
    const bare: Task = deepFreeze({ id: TASK_ID, contextId: CONTEXT_ID, status: { state: SUB } });
    expect(accepted(reduce(bare, artifactEvent(NEW_ARTIFACT))).artifacts).toStrictEqual([NEW_ARTIFACT]);
  });

  it('refuses to append to an unknown artifact with UNKNOWN_ARTIFACT', () => {
    const error = refused(reduce(task([DRAFT]), artifactEvent(UNKNOWN_CHUNK, { append: true })));
    expect(error).toMatchObject({ code: 'UNKNOWN_ARTIFACT', artifactId: 'art-missing' });
    expect(error.message).toContain('without append');
  });

  it('leaves status and history alone', () => {
    const before = taskIn(AUT);
    const next = accepted(reduce(before, artifactEvent(CHUNK_2, { append: true })));
    expect(next.status).toBe(before.status);
    expect(next.history).toBe(before.history);
  });
});

describe('reduce: purity', () => {
  it.each(EVENT_KINDS)('never mutates the task or the event (%s, every state)', (kind) => {
    for (const state of STATES) {
      const task = taskIn(state);
      const event = eventFor(kind);
      const taskBefore = structuredClone(task);
      const eventBefore = structuredClone(event);
      expect(() => reduce(task, event)).not.toThrow();
      expect(task).toStrictEqual(taskBefore);
      expect(event).toStrictEqual(eventBefore);
    }
  });

  it('returns a new task object for every accepted non-duplicate change', () => {
    const task = taskIn(WRK);
    const next = accepted(reduce(task, eventFor('artifact new')));
    expect(next).not.toBe(task);
    expect(next.artifacts).not.toBe(task.artifacts);
  });
});

describe('createTask', () => {
  it('starts a submitted task whose history is the stamped first message', () => {
    const message = deepFreeze(userMessage('m-1', 'hello'));
    const task = createTask(message, { taskId: 't-9', contextId: 'c-9', timestamp: T0 });
    expect(task).toStrictEqual({
      id: 't-9',
      contextId: 'c-9',
      status: { state: SUB, timestamp: T0 },
      history: [{ ...message, taskId: 't-9', contextId: 'c-9' }],
    });
    expect(TaskSchema.safeParse(task).success).toBe(true);
  });
});
