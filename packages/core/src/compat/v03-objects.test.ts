import { describe, expect, it } from 'vitest';
import { A2AError } from '../errors.js';
import type { Part, StreamResponse, TaskState } from '../schema/index.js';
import { MessageSchema, PartSchema, StreamResponseSchema, TaskSchema } from '../schema/index.js';
import { messageToV03, messageToV1, partToV03, partToV1 } from './v03-messages.js';
import { stateToV03, stateToV1, taskToV03, taskToV1, v03StreamEventToV1, v1StreamEventToV03 } from './v03-tasks.js';

/** Parts that convert exactly both ways: [name, v1.0, v0.3]. */
const PARTS: [string, Part, unknown][] = [
  ['text', { text: 'hi' }, { kind: 'text', text: 'hi' }],
  ['text with metadata', { text: 'hi', metadata: { lang: 'en' } }, { kind: 'text', text: 'hi', metadata: { lang: 'en' } }],
  [
    'raw bytes with media type and filename',
    { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'a.txt' },
    { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'text/plain', name: 'a.txt' } },
  ],
  ['url', { url: 'https://example.com/a.png' }, { kind: 'file', file: { uri: 'https://example.com/a.png' } }],
  ['data object', { data: { a: 1 } }, { kind: 'data', data: { a: 1 } }],
  ['data array (wrapped)', { data: [1, 2] }, { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } }],
  ['data null (wrapped)', { data: null }, { kind: 'data', data: { value: null }, metadata: { data_part_compat: true } }],
  [
    'data string with metadata (wrapped)',
    { data: 'x', metadata: { k: 'v' } },
    { kind: 'data', data: { value: 'x' }, metadata: { k: 'v', data_part_compat: true } },
  ],
];

/** v0.3 spellings read leniently: [name, v0.3 input, v1.0 output]. */
const LENIENT_PARTS: [string, unknown, Part][] = [
  ['legacy `type` discriminator (seed 001)', { type: 'text', text: 'hi' }, { text: 'hi' }],
  ['fileWithBytes (spec appendix A.2.1)', { kind: 'file', file: { fileWithBytes: 'aGk=' } }, { raw: 'aGk=' }],
  ['file.data (spec §9.3 example)', { kind: 'file', file: { mimeType: 'image/png', data: 'aGk=' } }, { raw: 'aGk=', mediaType: 'image/png' }],
  ['file without kind', { file: { uri: 'https://x.test/f' } }, { url: 'https://x.test/f' }],
  ['v1.0 part passes', { url: 'https://x.test/f', filename: 'f' }, { url: 'https://x.test/f', filename: 'f' }],
  ['null metadata dropped', { kind: 'text', text: 'a', metadata: null }, { text: 'a' }],
];

/** v0.3 parts that are rejected: [name, part, the field the error names]. */
const BAD_PARTS: [string, unknown, string][] = [
  ['unknown kind', { kind: 'video', uri: 'x' }, 'message.parts[0].kind'],
  ['text without text', { kind: 'text' }, 'message.parts[0].text'],
  ['file with bytes and uri', { kind: 'file', file: { bytes: 'aGk=', uri: 'https://x.test' } }, 'message.parts[0].file'],
  ['file without content', { kind: 'file', file: { name: 'a' } }, 'message.parts[0].file'],
  ['data without data', { kind: 'data' }, 'message.parts[0].data'],
  ['not an object', 'hello', 'message.parts[0]'],
];

describe('v0.3 parts', () => {
  it.each(PARTS)('%s converts both ways and the v1.0 side is valid', (_name, v1, v03) => {
    expect(partToV03(v1)).toEqual(v03);
    expect(partToV1(v03)).toEqual(v1);
    expect(PartSchema.parse(partToV1(v03))).toEqual(v1);
  });
  it.each(LENIENT_PARTS)('reads %s', (_name, v03, v1) => {
    expect(partToV1(v03)).toEqual(v1);
  });
  it.each(BAD_PARTS)('rejects %s with InvalidParams naming the field', (_name, part, field) => {
    const call = () => messageToV1({ messageId: 'm', role: 'user', parts: [part] });
    expect(call).toThrow(A2AError);
    expect(call).toThrow(`${field}:`);
    try {
      call();
    } catch (error) {
      expect((error as A2AError).code).toBe(-32602);
    }
  });
  it('drops text mediaType and filename, which v0.3 cannot carry', () => {
    expect(partToV03({ text: 'a', mediaType: 'text/markdown', filename: 'a.md' })).toEqual({ kind: 'text', text: 'a' });
  });
});

describe('v0.3 messages', () => {
  const v1 = {
    messageId: 'm1',
    role: 'ROLE_AGENT' as const,
    parts: [{ text: 'hello' }, { data: { n: 1 } }],
    contextId: 'c1',
    taskId: 't1',
    referenceTaskIds: ['t0'],
    extensions: ['https://ext.test/x'],
    metadata: { a: 1 },
  };
  const v03 = {
    kind: 'message',
    messageId: 'm1',
    role: 'agent',
    parts: [
      { kind: 'text', text: 'hello' },
      { kind: 'data', data: { n: 1 } },
    ],
    contextId: 'c1',
    taskId: 't1',
    referenceTaskIds: ['t0'],
    extensions: ['https://ext.test/x'],
    metadata: { a: 1 },
  };
  it('converts every field both ways', () => {
    expect(messageToV03(v1)).toEqual(v03);
    expect(messageToV1(v03)).toEqual(v1);
    expect(MessageSchema.parse(messageToV1(v03))).toEqual(v1);
  });
  it('treats null and empty ids as absent (Pydantic-style clients)', () => {
    const m = messageToV1({ kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }], taskId: null, contextId: '' });
    expect(m).toEqual({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] });
  });
  it.each([['robot'], [42], ['USER']])('rejects role %j naming message.role', (role) => {
    expect(() => messageToV1({ messageId: 'm', role, parts: [] })).toThrow(/message\.role: must be "user" or "agent"/);
  });
  it('accepts v1.0 role names', () => {
    expect(messageToV1({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }).role).toBe('ROLE_USER');
  });
});

const STATES: [TaskState, string][] = [
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
  ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
  ['TASK_STATE_COMPLETED', 'completed'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_CANCELED', 'canceled'],
  ['TASK_STATE_REJECTED', 'rejected'],
];

describe('v0.3 task states', () => {
  it.each(STATES)('%s <-> %s', (v1, v03) => {
    expect(stateToV03(v1)).toBe(v03);
    expect(stateToV1(v03)).toBe(v1);
    expect(stateToV1(v1)).toBe(v1);
  });
  it('reads snake case (Python enum names) and maps unknown to UNSPECIFIED', () => {
    expect(stateToV1('input_required')).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(stateToV1('unknown')).toBe('TASK_STATE_UNSPECIFIED');
    expect(stateToV1(7)).toBe('TASK_STATE_UNSPECIFIED');
    expect(stateToV03('TASK_STATE_UNSPECIFIED')).toBe('unknown');
  });
});

const task = {
  id: 't1',
  contextId: 'c1',
  status: {
    state: 'TASK_STATE_INPUT_REQUIRED' as const,
    timestamp: '2025-01-01T00:00:00.000Z',
    message: { messageId: 'a1', role: 'ROLE_AGENT' as const, parts: [{ text: 'Which one?' }], taskId: 't1', contextId: 'c1' },
  },
  artifacts: [{ artifactId: 'quote', name: 'quote', description: 'd', parts: [{ text: 'q' }], metadata: { x: 1 } }],
  history: [{ messageId: 'u1', role: 'ROLE_USER' as const, parts: [{ text: 'quote' }], taskId: 't1', contextId: 'c1' }],
  metadata: { m: true },
};

describe('v0.3 tasks', () => {
  it('adds kind and converts states, messages and artifacts', () => {
    const v03 = taskToV03(task);
    expect(v03).toMatchObject({
      kind: 'task',
      id: 't1',
      status: { state: 'input-required', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'Which one?' }] } },
      artifacts: [{ artifactId: 'quote', parts: [{ kind: 'text', text: 'q' }] }],
      history: [{ kind: 'message', role: 'user' }],
      metadata: { m: true },
    });
  });
  it('round-trips to the same valid v1.0 task', () => {
    const back = taskToV1(JSON.parse(JSON.stringify(taskToV03(task))));
    expect(back).toEqual(task);
    expect(TaskSchema.parse(back)).toEqual(task);
  });
});

const ids = { taskId: 't1', contextId: 'c1' };
const STREAM: [string, StreamResponse][] = [
  ['task', { task }],
  ['message', { message: task.history[0]! }],
  ['working status with metadata', { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' }, metadata: { progress: { current: 1, total: 2 } } } }],
  ['first artifact chunk', { artifactUpdate: { ...ids, artifact: { artifactId: 'output', parts: [{ text: 'a' }] }, append: false, lastChunk: false } }],
  ['last artifact chunk', { artifactUpdate: { ...ids, artifact: { artifactId: 'output', parts: [{ text: 'b' }] }, append: true, lastChunk: true } }],
  ['completed status', { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:01.000Z' } } }],
];

describe('v0.3 stream events', () => {
  it.each(STREAM)('%s round-trips through its v0.3 kind', (_name, response) => {
    const v03 = JSON.parse(JSON.stringify(v1StreamEventToV03(response)));
    expect(typeof v03.kind).toBe('string');
    const back = v03StreamEventToV1(v03);
    expect(back).toEqual(response);
    expect(StreamResponseSchema.parse(back)).toEqual(response);
  });
  it('names each payload by its kind', () => {
    expect(STREAM.map(([, r]) => (v1StreamEventToV03(r) as { kind: string }).kind)).toEqual([
      'task',
      'message',
      'status-update',
      'artifact-update',
      'artifact-update',
      'status-update',
    ]);
  });
  it.each(STATES)('a %s status update has final = terminal or interrupted', (state) => {
    const event = v1StreamEventToV03({ statusUpdate: { ...ids, status: { state } } }) as { final: boolean; status: { state: string } };
    const settles = !['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(state);
    expect(event.final).toBe(settles);
    expect(event.status.state).toBe(stateToV03(state));
  });
  it('passes v1.0 stream responses and kind-less values through', () => {
    const v1 = { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' as const } } };
    expect(v03StreamEventToV1(v1)).toBe(v1);
  });
});
