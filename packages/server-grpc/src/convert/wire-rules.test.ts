import type { Task } from '@taskwire/core';
import { A2AError, errorFromWire, invalidParams, SendMessageRequestSchema, taskNotFound } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import * as pb from '../gen/lf/a2a/v1/a2a.js';
import { decodeStreamEvent, encodeStreamEvent, RPC_CODECS } from './codecs.js';
import { fromMessage, fromPart, fromTask, toTask } from './messages.js';
import { fromTimestamp, toTimestamp } from './scalars.js';
import { decodeStatusDetails, encodeStatusDetails } from './status.js';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2025-10-28T10:30:00.123Z' },
};

describe('timestamps', () => {
  it('keep nanosecond precision both ways', () => {
    for (const iso of ['2025-10-28T10:30:00.123Z', '2025-10-28T10:30:00.123456Z', '2025-10-28T10:30:00.123456789Z', '1969-12-31T23:59:59.999Z']) {
      expect(fromTimestamp(toTimestamp(iso, 'x'))).toBe(iso);
    }
    expect(toTimestamp('2025-10-28T10:30:00.000000001Z', 'x')).toEqual({ seconds: 1761647400, nanos: 1 });
  });

  it('read the millisecond form core writes exactly, and still reject a non-date of that length', () => {
    for (const ms of [0, -1, 1761647400123, -62135596800000, 253402300799999]) {
      const iso = new Date(ms).toISOString();
      expect(toTimestamp(iso, 'x')).toEqual({ seconds: Math.floor(ms / 1000), nanos: (((ms % 1000) + 1000) % 1000) * 1e6 });
      expect(fromTimestamp(toTimestamp(iso, 'x'))).toBe(iso);
    }
    expect(() => toTimestamp('2025-13-45T99:99:99.999Z', 'status.timestamp')).toThrow(/status\.timestamp/);
  });

  it('always write at least milliseconds, so that they sort as strings', () => {
    expect(fromTimestamp(toTimestamp('2025-10-28T10:30:00Z', 'x'))).toBe('2025-10-28T10:30:00.000Z');
  });

  it('read other ISO forms through Date and reject what is not a date, naming the field', () => {
    expect(fromTimestamp(toTimestamp('2025-10-28T12:30:00+02:00', 'x'))).toBe('2025-10-28T10:30:00.000Z');
    expect(() => toTimestamp('yesterday', 'statusTimestampAfter')).toThrow(/statusTimestampAfter/);
  });

  it('turn an impossible proto timestamp into a string validation rejects', () => {
    expect(fromTimestamp({ seconds: 1e15, nanos: 0 })).toMatch(/^invalid timestamp/);
  });
});

describe('proto3 presence', () => {
  it('leaves out empty optional lists and strings, keeps required ones', () => {
    const back = fromTask(pb.Task.decode(pb.Task.encode(toTask({ ...task, contextId: '', history: [], artifacts: [] })).finish()));
    expect('history' in back).toBe(false);
    expect('artifacts' in back).toBe(false);
    expect('metadata' in back).toBe(false);
    expect(back.contextId).toBe('');
  });

  it('keeps optional scalars that have presence, even at their zero value', () => {
    const list = RPC_CODECS.ListTasks.request;
    expect(list.decode(list.encode({ includeArtifacts: false, historyLength: 0, pageSize: 0 }))).toEqual({
      includeArtifacts: false,
      historyLength: 0,
      pageSize: 0,
    });
    expect(list.decode(list.encode({}))).toEqual({});
  });

  it('keeps an empty metadata object apart from no metadata', () => {
    const back = fromTask(pb.Task.decode(pb.Task.encode(toTask({ ...task, metadata: {} })).finish()));
    expect(back.metadata).toEqual({});
  });
});

describe('what a client sent wrong stays visible to validation', () => {
  it('a part without content, an unspecified role and a missing message', () => {
    expect(fromPart({ content: undefined, metadata: undefined, filename: '', mediaType: '' })).toEqual({});
    const message = fromMessage({ messageId: '', contextId: '', taskId: '', role: pb.Role.ROLE_UNSPECIFIED, parts: [], metadata: undefined, extensions: [], referenceTaskIds: [] });
    const result = SendMessageRequestSchema.safeParse({ message });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['message.messageId', 'message.role', 'message.parts']));
    expect(RPC_CODECS.SendMessage.request.decode(Buffer.alloc(0))).toEqual({});
  });

  it('bytes that are not the rpc message are InvalidRequest', () => {
    const error = (() => {
      try {
        RPC_CODECS.GetTask.request.decode(Buffer.from([0x12, 0xff, 0xff, 0xff, 0x0f]));
      } catch (e) {
        return e;
      }
    })();
    expect(A2AError.is(error) && error.kind).toBe('InvalidRequest');
  });

  it('a string field that is not UTF-8 is InvalidRequest, not an id with U+FFFD in it', () => {
    // GetTaskRequest.id (field 2) = "t" 0xff "1"; a lone continuation byte and a truncated sequence too.
    for (const bad of [[0x74, 0xff, 0x31], [0x80], [0xe2, 0x82]]) {
      const bytes = Buffer.from([0x12, bad.length, ...bad]);
      expect(() => RPC_CODECS.GetTask.request.decode(bytes)).toThrow(/not valid UTF-8/);
    }
    // Valid multi-byte text, and U+FEFF at the start, read as sent.
    const text = '\ufeffid-é-🦄';
    const utf8 = Buffer.from(text);
    expect(RPC_CODECS.GetTask.request.decode(Buffer.from([0x12, utf8.length, ...utf8]))).toEqual(expect.objectContaining({ id: text }));
  });
});

describe('status details', () => {
  it('carry an A2A error with its ErrorInfo and BadRequest, and rebuild it', () => {
    const zod = SendMessageRequestSchema.safeParse({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }).error!;
    for (const error of [taskNotFound('t-9'), invalidParams(zod)]) {
      const decoded = decodeStatusDetails(encodeStatusDetails(error))!;
      expect(decoded.code).toBe(error.grpcStatus === 'NOT_FOUND' ? 5 : 3);
      expect(decoded.details).toEqual(error.details);
      const rebuilt = errorFromWire({ message: decoded.message, details: decoded.details });
      expect([rebuilt.kind, rebuilt.message, rebuilt.metadata]).toEqual([error.kind, error.message, error.metadata]);
    }
  });

  it('keep detail types they cannot read as base64 Any values', () => {
    const decoded = decodeStatusDetails(
      Buffer.from([0x1a, 0x0b, 0x0a, 0x05, ...Buffer.from('x/y.Z'), 0x12, 0x02, 0x08, 0x01]),
    );
    expect(decoded?.details).toEqual([{ '@type': 'x/y.Z', value: Buffer.from([0x08, 0x01]).toString('base64') }]);
    expect(decodeStatusDetails(Buffer.from([0xff]))).toBeUndefined();
  });
});

describe('the stream sequence field', () => {
  const event = { sequence: 0, response: { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' as const } } } };

  it('is appended on request, sequence 0 included, and read back', () => {
    expect(decodeStreamEvent(encodeStreamEvent(event, true))).toEqual(event);
    expect(decodeStreamEvent(encodeStreamEvent({ ...event, sequence: 2 ** 40 }, true)).sequence).toBe(2 ** 40);
  });

  it('is absent otherwise, and leaves the StreamResponse readable by any decoder', () => {
    expect(decodeStreamEvent(encodeStreamEvent(event, false)).sequence).toBeUndefined();
    const plain = pb.StreamResponse.decode(encodeStreamEvent(event, false));
    expect(pb.StreamResponse.decode(encodeStreamEvent(event, true))).toEqual(plain);
  });
});

describe('encoding (one writer shared by every message)', () => {
  const fresh = (value: Task) => Buffer.from(pb.Task.encode(toTask(value)).finish());

  it('hands out bytes that later messages do not overwrite', () => {
    const first = RPC_CODECS.GetTask.response.encode(task);
    const copy = Buffer.from(first);
    RPC_CODECS.GetTask.response.encode({ ...task, id: 'x'.repeat(100_000) });
    RPC_CODECS.GetTask.response.encode({ ...task, id: 't2' });
    expect(first).toEqual(copy);
    expect(first).toEqual(fresh(task));
  });

  it('starts clean after a message that failed half-way', () => {
    expect(() => RPC_CODECS.ListTasks.response.encode({ tasks: [task], nextPageToken: '', pageSize: 1.5, totalSize: 1 })).toThrow();
    expect(RPC_CODECS.GetTask.response.encode(task)).toEqual(fresh(task));
    expect(decodeStreamEvent(encodeStreamEvent({ sequence: 3, response: { task } }, true))).toEqual({ sequence: 3, response: { task } });
  });
});
