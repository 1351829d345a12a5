import type { Artifact, Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus } from '../schema/index.js';
import type { LifecycleEvent, ReduceResult, TransitionError } from './reduce.js';

// Shared fixtures of the reducer tests (reduce.test.ts, reduce-properties.test.ts).
// ---------------------------------------------------------------------------
// The expectation table. Written from DESIGN.md and the spec, independently of
// transitions.ts: do not derive it from TRANSITIONS or canTransition.
// ---------------------------------------------------------------------------

export const SUB = 'TASK_STATE_SUBMITTED';
export const WRK = 'TASK_STATE_WORKING';
export const INP = 'TASK_STATE_INPUT_REQUIRED';
export const AUT = 'TASK_STATE_AUTH_REQUIRED';
export const CMP = 'TASK_STATE_COMPLETED';
export const FAI = 'TASK_STATE_FAILED';
export const CAN = 'TASK_STATE_CANCELED';
export const REJ = 'TASK_STATE_REJECTED';

export const STATES: readonly TaskState[] = [SUB, WRK, INP, AUT, CMP, FAI, CAN, REJ];
export const LIVE_STATES: readonly TaskState[] = [SUB, WRK, INP, AUT];
export const TERMINAL_STATES: readonly TaskState[] = [CMP, FAI, CAN, REJ];
export const TERMINAL: ReadonlySet<TaskState> = new Set([CMP, FAI, CAN, REJ]);
export const INTERRUPTED: ReadonlySet<TaskState> = new Set([INP, AUT]);

export type EventKind =
  | 'user message'
  | `status -> ${TaskState}`
  | 'artifact new'
  | 'artifact replace'
  | 'artifact append'
  | 'artifact append unknown';

export const EVENT_KINDS: readonly EventKind[] = [
  'user message',
  ...STATES.map((s) => `status -> ${s}` as const),
  'artifact new',
  'artifact replace',
  'artifact append',
  'artifact append unknown',
];

export const ok = 'ok';
export const TERM = 'TASK_TERMINAL';
export const INV = 'INVALID_TRANSITION';
export const NAI = 'NOT_AWAITING_INPUT';
export const UNK = 'UNKNOWN_ARTIFACT';
export type Outcome = typeof ok | typeof TERM | typeof INV | typeof NAI | typeof UNK;

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
export const EXPECTED: Record<TaskState, readonly Outcome[]> = {
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

export function expectedOutcome(state: TaskState, kind: EventKind): Outcome {
  const outcome = EXPECTED[state][EVENT_KINDS.indexOf(kind)];
  if (!outcome) throw new Error(`no expectation for ${state} / ${kind}`);
  return outcome;
}

/** A status change the table allows: by a status update, or by the user's message (resume). */
export function allowedChange(from: TaskState, to: TaskState, by: 'status' | 'message'): boolean {
  if (by === 'message') return to === SUB && expectedOutcome(from, 'user message') === ok;
  return expectedOutcome(from, `status -> ${to}`) === ok;
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

export const TASK_ID = 'task-1';
export const CONTEXT_ID = 'ctx-1';
export const T0 = '2025-01-01T00:00:00.000Z';
export const T1 = '2025-01-01T00:00:05.000Z';

/** Freezes a value and everything it holds, so any mutation by the reducer throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function userMessage(messageId: string, text: string, extra: Partial<Message> = {}): Message {
  return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export function agentMessage(messageId: string, text: string): Message {
  return { messageId, role: 'ROLE_AGENT', parts: [{ text }], taskId: TASK_ID, contextId: CONTEXT_ID };
}

export const FIRST = userMessage('first', 'write me a quote', { taskId: TASK_ID, contextId: CONTEXT_ID });
export const QUESTION = agentMessage('question', 'Do you want Instagram, Pinterest, or General?');
export const DRAFT: Artifact = { artifactId: 'art-1', name: 'draft', parts: [{ text: 'chunk 1' }], metadata: { chunks: 1, author: 'agent' } };

/** A task in `state` with a status message, one history entry and one artifact. */
export function taskIn(state: TaskState): Task {
  return deepFreeze({
    id: TASK_ID,
    contextId: CONTEXT_ID,
    status: { state, message: QUESTION, timestamp: T0 },
    history: [FIRST],
    artifacts: [DRAFT],
    metadata: { origin: 'test' },
  });
}

export function statusEvent(state: TaskState, message?: Message, ids = { taskId: TASK_ID, contextId: CONTEXT_ID }): LifecycleEvent {
  const status: TaskStatus = message ? { state, message, timestamp: T1 } : { state, timestamp: T1 };
  return deepFreeze({ statusUpdate: { ...ids, status } });
}

export function artifactEvent(
  artifact: Artifact,
  flags: Pick<TaskArtifactUpdateEvent, 'append' | 'lastChunk'> = {},
  ids = { taskId: TASK_ID, contextId: CONTEXT_ID },
): LifecycleEvent {
  return deepFreeze({ artifactUpdate: { ...ids, artifact, ...flags } });
}

export const REPLY = userMessage('reply', 'instagram');
export const NEXT_STATUS_MESSAGE = agentMessage('status-2', 'on it');
export const NEW_ARTIFACT: Artifact = { artifactId: 'art-2', parts: [{ text: 'other' }] };
export const REPLACEMENT: Artifact = { artifactId: 'art-1', name: 'final', parts: [{ text: 'replaced' }] };
export const CHUNK_2: Artifact = { artifactId: 'art-1', parts: [{ text: 'chunk 2' }, { data: { n: 2 } }], metadata: { chunks: 2 } };
export const UNKNOWN_CHUNK: Artifact = { artifactId: 'art-missing', parts: [{ text: 'lost' }] };

export function eventFor(kind: EventKind): LifecycleEvent {
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
export function expectedTask(state: TaskState, kind: EventKind): Task {
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
export function expectedError(state: TaskState, kind: EventKind, code: Exclude<Outcome, 'ok'>): Partial<TransitionError> {
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

export function accepted(result: ReduceResult): Task {
  if (!result.ok) throw new Error(`expected the event to be accepted, got ${result.error.code}: ${result.error.message}`);
  return result.task;
}

export function refused(result: ReduceResult): TransitionError {
  if (result.ok) throw new Error(`expected the event to be refused, got a task in ${result.task.status.state}`);
  return result.error;
}

// ---------------------------------------------------------------------------
