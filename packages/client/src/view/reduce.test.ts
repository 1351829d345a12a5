import type { Message } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import type { ConversationView, ViewOptions } from './reduce.js';
import { EMPTY_VIEW, joinParts, reduceView, viewFromTasks, viewOf } from './reduce.js';
import { isTaskLike, normalizeEvent } from './normalize.js';

const user = (id: string, text: string, taskId?: string): Message => ({ messageId: id, role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) });
const agent = (id: string, text: string, taskId?: string): Message => ({ messageId: id, role: 'ROLE_AGENT', parts: [{ text }], ...(taskId && { taskId }) });
const v03 = (id: string, role: 'user' | 'agent', text: string) => ({ kind: 'message', messageId: id, role, parts: [{ kind: 'text', text }] });

const A = user('A', 'provide a sunset quote', 't1');
const B = agent('B', 'Do you want Instagram, Pinterest, or General?', 't1');
const C = user('C', 'insta', 't1');

const texts = (view: ConversationView) => view.messages.map((m) => m.messageId);
const stored = (...messages: Message[]): ConversationView => ({ ...EMPTY_VIEW, messages, taskId: 't1', contextId: 'ctx' });

interface Case {
  readonly name: string;
  readonly start?: ConversationView;
  readonly events: readonly unknown[];
  readonly options?: ViewOptions;
  readonly messages: readonly string[];
  readonly expect?: (view: ConversationView) => void;
}

// The cases of the seed "Task Detection, Display, and Storage" (002), plus
// the v1.0 shapes Taskwire streams.
const CASES: readonly Case[] = [
  {
    name: 'a full Task (kind "task") with history replaces the stored messages',
    start: stored(A, B),
    events: [{ kind: 'task', id: 't1', contextId: 'ctx', status: { state: 'working' }, history: [v03('A', 'user', 'x'), v03('B', 'agent', 'y'), v03('C', 'user', 'insta')] }],
    messages: ['A', 'B', 'C'],
    expect: (v) => expect(v.messages[2]!.parts).toEqual([{ text: 'insta' }]),
  },
  {
    name: 'ABCA: a task-like object without kind replaces instead of appending its history again',
    start: stored(A, B, C),
    events: [{ id: 't1', contextId: 'ctx', history: [A] }],
    messages: ['A'],
  },
  {
    name: 'ABCA with the same history: replacing shows every message once',
    start: stored(A, B, C),
    events: [{ contextId: 'ctx', id: 't1', history: [A, B, C] }],
    messages: ['A', 'B', 'C'],
  },
  {
    name: 'a full Task with an empty history does not replace: it only updates the state (streaming starts)',
    start: stored(A, B),
    events: [{ kind: 'task', id: 't1', contextId: 'ctx', status: { state: 'submitted' }, history: [] }],
    messages: ['A', 'B'],
    expect: (v) => expect([v.state, v.streaming]).toEqual(['TASK_STATE_SUBMITTED', true]),
  },
  {
    name: 'a status update appends its message',
    start: stored(A),
    events: [{ statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: B } } }],
    messages: ['A', 'B'],
    expect: (v) => expect([v.state, v.streaming]).toEqual(['TASK_STATE_INPUT_REQUIRED', false]),
  },
  {
    name: 'a status update with a messageId already shown updates it in place',
    start: stored(A, agent('M', 'thinking…', 't1'), C),
    events: [{ kind: 'status-update', taskId: 't1', contextId: 'ctx', final: false, status: { state: 'working', message: v03('M', 'agent', 'thinking… done') } }],
    messages: ['A', 'M', 'C'],
    expect: (v) => expect(v.messages[1]!.parts).toEqual([{ text: 'thinking… done' }]),
  },
  {
    name: 'plain messages are appended, and de-duplicated by messageId',
    events: [{ message: A }, v03('B', 'agent', 'hi'), { message: A }, A],
    messages: ['A', 'B'],
  },
  {
    name: 'artifact chunks are joined into one artifact, complete on lastChunk',
    events: [
      { artifactUpdate: { taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'out', name: 'output', parts: [{ text: 'chunk 1\n' }] }, lastChunk: false } },
      { artifactUpdate: { taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'out', parts: [{ text: 'chunk 2\n' }] }, append: true, lastChunk: false } },
      { kind: 'artifact-update', taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'out', parts: [{ kind: 'text', text: 'chunk 3\n' }] }, append: true, lastChunk: true },
    ],
    messages: [],
    expect: (v) => {
      expect(v.artifacts).toHaveLength(1);
      expect(v.artifacts[0]).toEqual({ taskId: 't1', complete: true, artifact: { artifactId: 'out', name: 'output', parts: [{ text: 'chunk 1\nchunk 2\nchunk 3\n' }] } });
    },
  },
  {
    name: 'an artifact update without append replaces the artifact of the same id',
    events: [
      { artifactUpdate: { taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'q', parts: [{ text: 'long quote' }] } } },
      { artifactUpdate: { taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'q', parts: [{ text: 'short' }] } } },
    ],
    messages: [],
    expect: (v) => expect(v.artifacts.map((a) => [a.artifact.parts, a.complete])).toEqual([[[{ text: 'short' }], true]]),
  },
  {
    name: "a running task's snapshot (a reloaded page) shows its newest artifact as still streaming, the earlier ones complete",
    events: [
      {
        task: {
          id: 't1',
          contextId: 'ctx',
          status: { state: 'TASK_STATE_WORKING' },
          artifacts: [
            { artifactId: 'a', parts: [{ text: 'done' }] },
            { artifactId: 'b', parts: [{ text: 'chunk 1' }] },
          ],
        },
      },
    ],
    messages: [],
    expect: (v) => expect(v.artifacts.map((a) => [a.artifact.artifactId, a.complete])).toEqual([['a', true], ['b', false]]),
  },
  {
    name: 'an artifact whose last chunk was seen stays complete in a later snapshot of the running task',
    events: [
      { artifactUpdate: { taskId: 't1', contextId: 'ctx', artifact: { artifactId: 'b', parts: [{ text: 'all' }] }, lastChunk: true } },
      { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: 'b', parts: [{ text: 'all' }] }] } },
    ],
    messages: [],
    expect: (v) => expect(v.artifacts.map((a) => a.complete)).toEqual([true]),
  },
  {
    name: "a task that settles completes its artifacts still streaming, not other tasks' ones",
    events: [
      { artifactUpdate: { taskId: 't0', contextId: 'ctx', artifact: { artifactId: 'x', parts: [{ text: 'other' }] }, lastChunk: false } },
      { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: 'b', parts: [{ text: 'chunk 1' }] }] } },
      { statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' } } },
    ],
    messages: [],
    expect: (v) => expect(v.artifacts.map((a) => [a.taskId, a.complete])).toEqual([['t0', false], ['t1', true]]),
  },
  {
    name: 'a settled task snapshot shows every artifact complete',
    events: [{ task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'b', parts: [{ text: 'x' }] }] } }],
    messages: [],
    expect: (v) => expect(v.artifacts.map((a) => a.complete)).toEqual([true]),
  },
  {
    name: 'the status message that moves into history (v1.0) is shown once',
    events: [
      { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED' }, history: [A] } },
      { statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: B } } },
      { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, history: [A, B, C] } },
    ],
    messages: ['A', 'B', 'C'],
  },
  {
    name: 'a full Task replaces only its own messages: other tasks of the conversation stay',
    start: stored(A, B, C),
    events: [
      { task: { id: 't2', contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED' }, history: [user('D', 'make it shorter')] } },
      { statusUpdate: { taskId: 't2', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED', message: agent('E', 'Here is a shorter version.') } } },
      { task: { id: 't2', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED', message: agent('E', 'Here is a shorter version.') }, history: [user('D', 'make it shorter')] } },
    ],
    messages: ['A', 'B', 'C', 'D', 'E'],
    expect: (v) => expect(v.messages.slice(3).map((m) => m.taskId)).toEqual(['t2', 't2']),
  },
  {
    name: "replace: 'all' makes a full Task replace the whole conversation (a session's effective history, e.g. after a rewind)",
    start: { ...stored(A, B, C, user('D', 'later', 't2')) },
    options: { replace: 'all' },
    events: [{ kind: 'task', id: 'ctx', contextId: 'ctx', status: { state: 'completed' }, history: [v03('A', 'user', 'x'), v03('B', 'agent', 'y')] }],
    messages: ['A', 'B'],
  },
  {
    name: 'events inside a StreamEvent or a JSON-RPC response are unwrapped',
    events: [
      { sequence: 4, response: { message: A } },
      { jsonrpc: '2.0', id: 1, result: { kind: 'status-update', taskId: 't1', contextId: 'ctx', final: true, status: { state: 'completed', message: v03('B', 'agent', 'done') } } },
    ],
    messages: ['A', 'B'],
    expect: (v) => expect(v.state).toBe('TASK_STATE_COMPLETED'),
  },
  {
    name: 'progress comes from the status update’s metadata.progress',
    events: [{ statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, metadata: { progress: { current: 3, total: 50 } } } }],
    messages: [],
    expect: (v) => expect(v.progress).toEqual({ current: 3, total: 50 }),
  },
  {
    name: 'an update or task without its (required) contextId, or with an empty one, keeps the context',
    start: stored(A),
    events: [
      { statusUpdate: { taskId: 't1', status: { state: 'TASK_STATE_WORKING' } } },
      { artifactUpdate: { taskId: 't1', contextId: '', artifact: { artifactId: 'out', parts: [{ text: 'x' }] } } },
      { statusUpdate: { taskId: 't1', contextId: '', status: { state: 'TASK_STATE_CANCELED' } } },
      { task: { id: 't1', contextId: '', status: { state: 'TASK_STATE_CANCELED' } } },
    ],
    messages: ['A'],
    expect: (v) => expect(v).toMatchObject({ contextId: 'ctx', state: 'TASK_STATE_CANCELED', streaming: false }),
  },
  {
    name: 'an unrecognised payload leaves the view as it is',
    start: stored(A),
    events: [{ hello: 'world' }, 42, null, { kind: 'something-else' }, { id: 'x', contextId: 'c', history: [] }],
    messages: ['A'],
  },
];

describe('conversation view reducer (seed 002 cases)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      let view = c.start ?? EMPTY_VIEW;
      for (const event of c.events) view = reduceView(view, event, c.options);
      expect(texts(view)).toEqual(c.messages);
      c.expect?.(view);
    });
  }

  it('never mutates the view it is given', () => {
    const start = stored(A, B);
    const frozen = JSON.stringify(start);
    reduceView(start, { task: { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' }, history: [A] } });
    reduceView(start, { statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', message: C } } });
    expect(JSON.stringify(start)).toBe(frozen);
  });

  it('an unrecognised payload returns the very same view object', () => {
    const start = stored(A);
    expect(reduceView(start, { nothing: true })).toBe(start);
  });
});

describe('event detection', () => {
  it.each([
    ['history + id', { id: 't', history: [A] }, true],
    ['history + contextId', { contextId: 'c', history: [A] }, true],
    ['empty history', { id: 't', history: [] }, false],
    ['no id or contextId', { history: [A] }, false],
    ['not an object', 'task', false],
  ])('isTaskLike: %s', (_name, value, expected) => {
    expect(isTaskLike(value)).toBe(expected);
  });

  it('recognises bare v1.0 objects by their fields', () => {
    expect(Object.keys(normalizeEvent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } })!)).toEqual(['task']);
    expect(Object.keys(normalizeEvent({ taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } })!)).toEqual(['statusUpdate']);
    expect(Object.keys(normalizeEvent({ taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } })!)).toEqual(['artifactUpdate']);
    expect(Object.keys(normalizeEvent(A)!)).toEqual(['message']);
  });

  it('converts v0.3 states, roles and parts inside a v1.0 wrapper', () => {
    const response = normalizeEvent({ task: { id: 't', contextId: 'c', status: { state: 'input-required' }, history: [v03('A', 'user', 'hi')] } });
    expect(response).toEqual({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history: [{ messageId: 'A', role: 'ROLE_USER', parts: [{ text: 'hi' }] }] } });
  });
});

describe('helpers', () => {
  it('joinParts joins adjacent plain text and keeps other parts apart', () => {
    expect(joinParts([{ text: 'a' }], [{ text: 'b' }, { data: { x: 1 } }, { text: 'c' }])).toEqual([{ text: 'ab' }, { data: { x: 1 } }, { text: 'c' }]);
    expect(joinParts([{ text: 'a', mediaType: 'text/markdown' }], [{ text: 'b' }])).toHaveLength(2);
  });

  it('viewFromTasks merges the histories of a session’s tasks, each message once', () => {
    const view = viewFromTasks([
      { id: 't1', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED', message: B }, history: [A] },
      { id: 't2', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' }, history: [C] },
    ]);
    expect(texts(view)).toEqual(['A', 'B', 'C']);
    expect(viewOf([])).toBe(EMPTY_VIEW);
  });
});
