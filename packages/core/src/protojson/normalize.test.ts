import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROTO_FIELDS_FILE, renderProtoFields } from '../../scripts/gen-protojson.js';
import { A2AError } from '../errors.js';
import { METHOD_NAMES, METHODS } from '../methods.js';
import { parseParams } from '../service/service-options.js';
import { protoJsonField, readProtoJsonParams } from './normalize.js';
import { PROTO_MESSAGES, PROTO_REQUESTS } from './proto-fields.js';

const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

function rejection(run: () => unknown): A2AError {
  try {
    run();
  } catch (error) {
    if (A2AError.is(error)) return error;
    throw error;
  }
  throw new Error('expected InvalidParams');
}

describe('the ProtoJSON field table', () => {
  it('is what `pnpm gen` makes from proto/ (run it after editing a .proto)', () => {
    expect(readFileSync(PROTO_FIELDS_FILE, 'utf8'), 'src/protojson/proto-fields.ts is stale: run `pnpm gen` in packages/core').toBe(renderProtoFields());
  });

  it('covers every method of the table, and names the fields the schemas read', () => {
    for (const method of METHOD_NAMES) {
      const type = PROTO_REQUESTS[method];
      expect(type, method).toBeDefined();
      const shape = Object.keys((METHODS[method].params as unknown as { shape: Record<string, unknown> }).shape);
      const declared = PROTO_MESSAGES[type!]!.map(([, json]) => json);
      // Taskwire's own extension (afterSequence) is the only schema field the proto does not declare.
      expect(shape.filter((name) => !declared.includes(name) && name !== 'afterSequence'), method).toEqual([]);
    }
  });
});

describe('readProtoJsonParams', () => {
  it('returns a canonical request as it is (no copy)', () => {
    const params = { message, configuration: { historyLength: 2, acceptedOutputModes: ['text/plain'] }, metadata: { a_b: '' } };
    expect(readProtoJsonParams('SendMessage', params)).toBe(params);
    const get = { id: 't1', historyLength: 0 };
    expect(readProtoJsonParams('GetTask', get)).toBe(get);
  });

  it('reads proto field names as their JSON names, at every depth, without touching the input', () => {
    const params = {
      message: { message_id: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi', media_type: 'text/plain' }], task_id: 't1', context_id: 'c1', reference_task_ids: ['r1'] },
      configuration: {
        history_length: 3,
        return_immediately: true,
        accepted_output_modes: ['text/plain'],
        task_push_notification_config: { url: 'https://example.com/hook', task_id: 't1' },
      },
    };
    const copy = structuredClone(params);
    expect(readProtoJsonParams('SendMessage', params)).toEqual({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi', mediaType: 'text/plain' }], taskId: 't1', contextId: 'c1', referenceTaskIds: ['r1'] },
      configuration: {
        historyLength: 3,
        returnImmediately: true,
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: { url: 'https://example.com/hook', taskId: 't1' },
      },
    });
    expect(params).toEqual(copy);
  });

  it('leaves free-form values alone: metadata keys and data parts are data, not field names', () => {
    const params = { message: { ...message, parts: [{ data: { task_id: '' } }], metadata: { context_id: '' } }, metadata: { history_length: 1 } };
    expect(readProtoJsonParams('SendMessage', params)).toBe(params);
  });

  it('reads enums by number, and leaves unknown numbers for validation to refuse', () => {
    expect(readProtoJsonParams('SendMessage', { message: { ...message, role: 1 } })).toEqual({ message });
    expect(readProtoJsonParams('ListTasks', { status: 3 })).toEqual({ status: 'TASK_STATE_COMPLETED' });
    expect(readProtoJsonParams('ListTasks', { status: 0 })).toEqual({ status: 'TASK_STATE_UNSPECIFIED' });
    expect(rejection(() => parseParams('ListTasks', { status: 42 })).kind).toBe('InvalidParams');
    expect(rejection(() => parseParams('SendMessage', { message: { ...message, role: 0 } })).message).toContain('message.role');
  });

  it('treats "" in a proto3 string field as not set, but keeps "" where it is a value (text, list items)', () => {
    expect(readProtoJsonParams('SendMessage', { message: { ...message, taskId: '', contextId: '' }, tenant: '' })).toEqual({ message });
    expect(readProtoJsonParams('ListTasks', { contextId: '', pageToken: '' })).toEqual({});
    const kept = { message: { ...message, parts: [{ text: '' }], extensions: [''] } };
    expect(readProtoJsonParams('SendMessage', kept)).toBe(kept);
    // A required id given as "" is missing, and says so.
    expect(rejection(() => parseParams('GetTask', { id: '' })).message).toContain('id');
  });

  it('refuses a field given under both names, naming its path', () => {
    const twice = rejection(() => readProtoJsonParams('GetTask', { id: 't1', historyLength: 1, history_length: 1 }));
    expect(twice.kind).toBe('InvalidParams');
    expect(twice.message).toContain('historyLength: given twice, as "historyLength" and as "history_length"');
    const nested = rejection(() =>
      readProtoJsonParams('SendMessage', { message: { ...message, parts: [{ text: 'a' }, { text: 'b', mediaType: 'x', media_type: 'x' }] } }),
    );
    expect(nested.message).toContain('message.parts[1].mediaType: given twice');
    expect(nested.details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest' }));
  });

  it('passes shapes the proto does not declare on for validation (not its job to refuse them)', () => {
    expect(readProtoJsonParams('SendMessage', 'text')).toBe('text');
    const odd = { message: { ...message, parts: 'none' }, configuration: [1] };
    expect(readProtoJsonParams('SendMessage', odd)).toBe(odd);
  });

  it('is what parseParams applies before validation', () => {
    const parsed = parseParams('GetTask', { id: 't1', history_length: 2, tenant: '' });
    expect(parsed).toEqual({ id: 't1', historyLength: 2 });
  });
});

describe('protoJsonField', () => {
  it('finds a top-level field by either name', () => {
    expect(protoJsonField('GetTask', 'history_length')).toEqual(expect.objectContaining({ json: 'historyLength', kind: 'other' }));
    expect(protoJsonField('ListTasks', 'status')).toEqual(expect.objectContaining({ json: 'status', kind: 'enum' }));
    expect(protoJsonField('GetTask', 'nope')).toBeUndefined();
    expect(protoJsonField('GetTask', 'toString')).toBeUndefined();
  });
});
