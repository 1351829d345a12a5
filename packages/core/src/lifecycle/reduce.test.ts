import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Artifact, Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus } from '../schema/index.js';
import { TaskSchema } from '../schema/index.js';
import type { LifecycleEvent, ReduceResult, TransitionError } from './reduce.js';
import { createTask, reduce } from './reduce.js';

// ---------------------------------------------------------------------------
// The expectation table. Written from DESIGN.md and the spec, independently of
// transitions.ts: do not derive it from TRANSITIONS or canTransition.
// ---------------------------------------------------------------------------

const SUB = 'TASK_STATE_SUBMITTED';
const WRK = 'TASK_STATE_WORKING';
const INP = 'TASK_STATE_INPUT_REQUIRED';
const AUT = 'TASK_STATE_AUTH_REQUIRED';
const CMP = 'TASK_STATE_COMPLETED';
const FAI = 'TASK_STATE_FAILED';
const CAN = 'TASK_STATE_CANCELED';
const REJ = 'TASK_STATE_REJECTED';

const STATES: readonly TaskState[] = [SUB, WRK, INP, AUT, CMP, FAI, CAN, REJ];
const LIVE_STATES: readonly TaskState[] = [SUB, WRK, INP, AUT];
const TERMINAL_STATES: readonly TaskState[] = [CMP, FAI, CAN, REJ];
const TERMINAL: ReadonlySet<TaskState> = new Set([CMP, FAI, CAN, REJ]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set([INP, AUT]);

type EventKind =
  | 'user message'
  | `status -> ${TaskState}`
  | 'artifact new'
  | 'artifact replace'
  | 'artifact append'
  | 'artifact append unknown';

const EVENT_KINDS: readonly EventKind[] = [
  'user message',
  ...STATES.map((s) => `status -> ${s}` as const),
  'artifact new',
  'artifact replace',
  'artifact append',
  'artifact append unknown',
];

const ok = 'ok';
const TERM = 'TASK_TERMINAL';
const INV = 'INVALID_TRANSITION';
const NAI = 'NOT_AWAITING_INPUT';
const UNK = 'UNKNOWN_ARTIFACT';
type Outcome = typeof ok | typeof TERM | typeof INV | typeof NAI | typeof UNK;

/**
 * The outcome of every (state, event) pair. Columns, in order:
 * user message | status -> SUB WRK INP AUT CMP FAI CAN REJ | artifact new, replace, append, append-unknown.
 *
 * - submitted/working: any status but submitted; a user message is refused (the task is not waiting);
 * - input-required: only canceled or failed by status; the user's message resumes it;
 * - auth-required: as input-required, plus working (the agent may get the credential
 *   out of band and continue without a client message, spec 7.6.1);
 * - terminal: nothing at all;
 * - artifacts: accepted in every non-terminal state; appending to an unknown artifact is an error.
 */
// prettier-ignore
const EXPECTED: Record<TaskState, readonly Outcome[]> = {
  //                         msg   SUB  WRK  INP  AUT  CMP  FAI  CAN  REJ   new  repl app  app?
  TASK_STATE_SUBMITTED:      [NAI, INV, ok,  ok,  ok,  ok,  ok,  ok,  ok,   ok,  ok,  ok,  UNK],
  TASK_STATE_WORKING:        [NAI, INV, ok,  ok,  ok,  ok,  ok,  ok,  ok,   ok,  ok,  ok,  UNK],
  TASK_STATE_INPUT_REQUIRED: [ok,  INV, INV, INV, INV, INV, ok,  ok,  INV,  ok,  ok,  ok,  UNK],
  TASK_STATE_AUTH_REQUIRED:  [ok,  INV, ok,  INV, INV, INV, ok,  ok,  INV,  ok,  ok,  ok,  UNK],
  TASK_STATE_COMPLETED:      [TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM],
  TASK_STATE_FAILED:         [TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM],
  TASK_STATE_CANCELED:       [TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM],
  TASK_STATE_REJECTED:       [TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM, TERM],
};

function expectedOutcome(state: TaskState, kind: EventKind): Outcome {
  const outcome = EXPECTED[state][EVENT_KINDS.indexOf(kind)];
  if (!outcome) throw new Error(`no expectation for ${state} / ${kind}`);
  return outcome;
}

/** A status change the table allows: by a status update, or by the user's message (resume). */
function allowedChange(from: TaskState, to: TaskState, by: 'status' | 'message'): boolean {
  if (by === 'message') return to === SUB && expectedOutcome(from, 'user message') === ok;
  return expectedOutcome(from, `status -> ${to}`) === ok;
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const TASK_ID = 'task-1';
const CONTEXT_ID = 'ctx-1';
const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T00:00:05.000Z';

/** Freezes a value and everything it holds, so any mutation by the reducer throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function userMessage(messageId: string, text: string, extra: Partial<Message> = {}): Message {
  return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

function agentMessage(messageId: string, text: string): Message {
  return { messageId, role: 'ROLE_AGENT', parts: [{ text }], taskId: TASK_ID, contextId: CONTEXT_ID };
}

const FIRST = userMessage('first', 'write me a quote', { taskId: TASK_ID, contextId: CONTEXT_ID });
const QUESTION = agentMessage('question', 'Do you want Instagram, Pinterest, or General?');
const DRAFT: Artifact = { artifactId: 'art-1', name: 'draft', parts: [{ text: 'chunk 1' }], metadata: { chunks: 1, author: 'agent' } };

/** A task in `state` with a status message, one history entry and one artifact. */
function taskIn(state: TaskState): Task {
  return deepFreeze({
    id: TASK_ID,
    contextId: CONTEXT_ID,
    status: { state, message: QUESTION, timestamp: T0 },
    history: [FIRST],
    artifacts: [DRAFT],
    metadata: { origin: 'test' },
  });
}

function statusEvent(state: TaskState, message?: Message, ids = { taskId: TASK_ID, contextId: CONTEXT_ID }): LifecycleEvent {
  const status: TaskStatus = message ? { state, message, timestamp: T1 } : { state, timestamp: T1 };
  return deepFreeze({ statusUpdate: { ...ids, status } });
}

function artifactEvent(
  artifact: Artifact,
  flags: Pick<TaskArtifactUpdateEvent, 'append' | 'lastChunk'> = {},
  ids = { taskId: TASK_ID, contextId: CONTEXT_ID },
): LifecycleEvent {
  return deepFreeze({ artifactUpdate: { ...ids, artifact, ...flags } });
}

const REPLY = userMessage('reply', 'instagram');
const NEXT_STATUS_MESSAGE = agentMessage('status-2', 'on it');
const NEW_ARTIFACT: Artifact = { artifactId: 'art-2', parts: [{ text: 'other' }] };
const REPLACEMENT: Artifact = { artifactId: 'art-1', name: 'final', parts: [{ text: 'replaced' }] };
const CHUNK_2: Artifact = { artifactId: 'art-1', parts: [{ text: 'chunk 2' }, { data: { n: 2 } }], metadata: { chunks: 2 } };
const UNKNOWN_CHUNK: Artifact = { artifactId: 'art-missing', parts: [{ text: 'lost' }] };

function eventFor(kind: EventKind): LifecycleEvent {
  switch (kind) {
    case 'user message':
      return deepFreeze({ message: REPLY, timestamp: T1 });
    case 'artifact new':
      return artifactEvent(NEW_ARTIFACT);
    case 'artifact replace':
      return artifactEvent(REPLACEMENT, { lastChunk: true });
    case 'artifact append':
      return artifactEvent(CHUNK_2, { append: true, lastChunk: true });
    case 'artifact append unknown':
      return artifactEvent(UNKNOWN_CHUNK, { append: true });
    default:
      return statusEvent(kind.slice('status -> '.length) as TaskState, NEXT_STATUS_MESSAGE);
  }
}

/** The task the reducer must produce for an accepted (state, event) pair. */
function expectedTask(state: TaskState, kind: EventKind): Task {
  const base = taskIn(state);
  switch (kind) {
    case 'user message':
      return {
        ...base,
        status: { state: SUB, timestamp: T1 },
        history: [FIRST, QUESTION, { ...REPLY, taskId: TASK_ID, contextId: CONTEXT_ID }],
      };
    case 'artifact new':
      return { ...base, artifacts: [DRAFT, NEW_ARTIFACT] };
    case 'artifact replace':
      return { ...base, artifacts: [REPLACEMENT] };
    case 'artifact append':
      return {
        ...base,
        artifacts: [
          {
            artifactId: 'art-1',
            name: 'draft',
            parts: [{ text: 'chunk 1' }, { text: 'chunk 2' }, { data: { n: 2 } }],
            metadata: { chunks: 2, author: 'agent' },
          },
        ],
      };
    case 'artifact append unknown':
      throw new Error('appending to an unknown artifact is never accepted');
    default: {
      const to = kind.slice('status -> '.length) as TaskState;
      return { ...base, status: { state: to, message: NEXT_STATUS_MESSAGE, timestamp: T1 }, history: [FIRST, QUESTION] };
    }
  }
}

/** The error the reducer must return for a refused (state, event) pair. */
function expectedError(state: TaskState, kind: EventKind, code: Exclude<Outcome, 'ok'>): Partial<TransitionError> {
  switch (code) {
    case TERM:
      return { code, state };
    case NAI:
      return { code, state };
    case UNK:
      return { code, artifactId: 'art-missing' };
    case INV:
      return { code, from: state, to: kind.slice('status -> '.length) as TaskState };
  }
}

function accepted(result: ReduceResult): Task {
  if (!result.ok) throw new Error(`expected the event to be accepted, got ${result.error.code}: ${result.error.message}`);
  return result.task;
}

function refused(result: ReduceResult): TransitionError {
  if (result.ok) throw new Error(`expected the event to be refused, got a task in ${result.task.status.state}`);
  return result.error;
}

// ---------------------------------------------------------------------------
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
