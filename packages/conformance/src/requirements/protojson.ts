import type { ParamsOf } from '@taskwire/core';
import { expect } from 'vitest';
import { userMessage } from '../harness.js';
import { requirement } from '../requirement.js';

/**
 * Params as a ProtoJSON parser reads them but the method table's types do
 * not spell them (proto field names, enum numbers): sent as given.
 */
const raw = <M extends 'SendMessage' | 'GetTask' | 'ListTasks'>(params: Record<string, unknown>) => params as unknown as ParamsOf<M>;

/** ProtoJSON as the JSON bindings use it: both field names, enums by name or number, "" as unset. */
export const protoJsonRequirements = [
  requirement('protojson-proto-field-names', '5.5', 'a request may name fields by their proto names (message_id, context_id, history_length); answers use the JSON names', async (h) => {
    const sent = await h.client.unary(
      'SendMessage',
      raw<'SendMessage'>({
        message: { message_id: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo snake', media_type: 'text/plain' }], context_id: 'ctx-proto-names' },
        configuration: { history_length: 0, return_immediately: false },
      }),
    );
    if (!('task' in sent)) throw new Error('expected a task');
    expect(sent.task.contextId).toBe('ctx-proto-names');
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.task.history).toBeUndefined();
    const read = await h.client.unary('GetTask', raw<'GetTask'>({ id: sent.task.id, history_length: 1 }));
    expect(read.history).toHaveLength(1);
    expect(Object.keys(read)).toEqual(expect.arrayContaining(['id', 'contextId', 'status']));
  }),
  requirement('protojson-enum-numbers', '5.5', 'an enum may be sent by number (role 1 is ROLE_USER, status 3 is TASK_STATE_COMPLETED); answers use the names', async (h) => {
    const sent = await h.client.unary('SendMessage', raw<'SendMessage'>({ message: { ...userMessage('echo by number', { contextId: 'ctx-enum-numbers' }), role: 1 } }));
    if (!('task' in sent)) throw new Error('expected a task');
    expect(sent.task.history?.[0]?.role).toBe('ROLE_USER');
    await h.send('quote', { contextId: 'ctx-enum-numbers' });
    const listed = await h.client.unary('ListTasks', raw<'ListTasks'>({ contextId: 'ctx-enum-numbers', status: 3 }));
    expect(listed.tasks.map((t) => [t.id, t.status.state])).toEqual([[sent.task.id, 'TASK_STATE_COMPLETED']]);
  }),
  requirement('protojson-both-names', '5.5', 'a field given under both its JSON and its proto name is InvalidParams (-32602)', async (h) => {
    const task = await h.send('echo twice');
    const error = await h.error(h.client.unary('GetTask', raw<'GetTask'>({ id: task.id, historyLength: 1, history_length: 1 })));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('historyLength');
  }),
  requirement('empty-string-is-unset', '5.7', 'an empty taskId or contextId is not set: the message starts a new task in a new context', async (h) => {
    const first = await h.send('echo one', { taskId: '', contextId: '' });
    const second = await h.send('echo two', { taskId: '', contextId: '' });
    for (const task of [first, second]) {
      expect(task.id).not.toBe('');
      expect(task.contextId).not.toBe('');
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await h.client.unary('GetTask', { id: task.id })).id).toBe(task.id);
    }
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).not.toBe(first.contextId);
  }),
];

/** Why the name and number requirements do not apply to a binary protobuf wire (gRPC carries field numbers, not names or enum spellings). */
export const NOT_PROTOJSON_ON_GRPC = 'gRPC carries binary protobuf: fields by number and enums as numbers, so there are no JSON names or enum spellings to read';

/** The ProtoJSON requirements a wire that is not ProtoJSON does not have, each with `reason`. */
export function notProtoJson(reason: string): Record<string, string> {
  return Object.fromEntries(['protojson-proto-field-names', 'protojson-enum-numbers', 'protojson-both-names'].map((id) => [id, reason]));
}
