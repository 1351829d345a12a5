import { describe, expect, it } from 'vitest';
import type { MethodName, ParamsOf } from '../methods.js';
import { findMethod, METHODS } from '../methods.js';
import { parseParams } from '../service/service-options.js';
import { v03ParamsToV1, v1ParamsToV03 } from './v03-params.js';

const text = (t: string) => ({ kind: 'text', text: t });
const userV03 = (extra: Record<string, unknown> = {}) => ({ kind: 'message', messageId: 'm1', role: 'user', parts: [text('hi')], ...extra });
const userV1 = (extra: Record<string, unknown> = {}) => ({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...extra });

/** v0.3 params as v0.3 clients send them, and the v1.0 params they mean: [name, v0.3 method, v0.3 params, v1.0 params]. */
const INBOUND: [string, string, unknown, unknown][] = [
  ['message/send, no configuration (blocking by default)', 'message/send', { message: userV03() }, { message: userV1() }],
  [
    'message/send, blocking: false',
    'message/send',
    { message: userV03(), configuration: { blocking: false, acceptedOutputModes: ['text/plain'], historyLength: 2 } },
    { message: userV1(), configuration: { returnImmediately: true, acceptedOutputModes: ['text/plain'], historyLength: 2 } },
  ],
  ['message/send, blocking: true', 'message/send', { message: userV03(), configuration: { blocking: true } }, { message: userV1() }],
  [
    'message/send, historyLength 0 means no limit in v0.3',
    'message/send',
    { message: userV03(), configuration: { historyLength: 0 } },
    { message: userV1() },
  ],
  [
    'message/send with a push config (schemes list)',
    'message/send',
    {
      message: userV03(),
      configuration: { pushNotificationConfig: { url: 'https://hook.test/a', token: 'tok', authentication: { schemes: ['Bearer'] } } },
    },
    {
      message: userV1(),
      configuration: { taskPushNotificationConfig: { url: 'https://hook.test/a', token: 'tok', authentication: { scheme: 'Bearer' } } },
    },
  ],
  [
    'message/send with messageId next to the message (spec §9.4 example)',
    'message/send',
    { message: { role: 'user', parts: [text('hi')] }, messageId: 'm1' },
    { message: userV1() },
  ],
  [
    'message/send, Bindu-style new task id with references and metadata',
    'message/send',
    { message: userV03({ taskId: 'client-id', contextId: 'c1', referenceTaskIds: ['t0'] }), metadata: { ui: 'bindu' } },
    { message: userV1({ taskId: 'client-id', contextId: 'c1', referenceTaskIds: ['t0'] }), metadata: { ui: 'bindu' } },
  ],
  ['message/stream', 'message/stream', { message: userV03() }, { message: userV1() }],
  ['tasks/get', 'tasks/get', { id: 't1', historyLength: 3, metadata: {} }, { id: 't1', historyLength: 3 }],
  ['tasks/get, historyLength 0 means no limit', 'tasks/get', { id: 't1', historyLength: 0 }, { id: 't1' }],
  ['tasks/get with taskId (seed 001, evo-ai)', 'tasks/get', { taskId: 'task-123' }, { id: 'task-123' }],
  ['tasks/cancel with taskId and reason (seed 001)', 'tasks/cancel', { taskId: 'task-123', reason: 'User requested cancellation' }, { id: 'task-123' }],
  ['tasks/cancel with metadata', 'tasks/cancel', { id: 't1', metadata: { why: 'x' } }, { id: 't1', metadata: { why: 'x' } }],
  ['tasks/resubscribe with taskId (seed 001)', 'tasks/resubscribe', { taskId: 'task-123', includeHistory: true }, { id: 'task-123' }],
  ['tasks/resubscribe keeps afterSequence', 'tasks/resubscribe', { id: 't1', afterSequence: 4 }, { id: 't1', afterSequence: 4 }],
  ['tasks/list with a kebab status', 'tasks/list', { contextId: 'c1', status: 'input-required' }, { contextId: 'c1', status: 'TASK_STATE_INPUT_REQUIRED' }],
  ['tasks/list with a v1.0 status', 'tasks/list', { status: 'TASK_STATE_WORKING' }, { status: 'TASK_STATE_WORKING' }],
  [
    'tasks/pushNotificationConfig/set',
    'tasks/pushNotificationConfig/set',
    { taskId: 't1', pushNotificationConfig: { id: 'c1', url: 'https://hook.test/a', authentication: { schemes: ['Basic', 'Bearer'], credentials: 'x' } } },
    { taskId: 't1', id: 'c1', url: 'https://hook.test/a', authentication: { scheme: 'Basic', credentials: 'x' } },
  ],
  [
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/get',
    { id: 't1', pushNotificationConfigId: 'c1' },
    { taskId: 't1', id: 'c1' },
  ],
  ['tasks/pushNotificationConfig/get without a config id', 'tasks/pushNotificationConfig/get', { id: 't1' }, { taskId: 't1', id: 't1' }],
  ['tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/list', { id: 't1' }, { taskId: 't1' }],
  [
    'tasks/pushNotificationConfig/delete',
    'tasks/pushNotificationConfig/delete',
    { id: 't1', pushNotificationConfigId: 'c1' },
    { taskId: 't1', id: 'c1' },
  ],
  ['agent/getAuthenticatedExtendedCard without params', 'agent/getAuthenticatedExtendedCard', undefined, {}],
];

describe('v03ParamsToV1', () => {
  it.each(INBOUND)('%s', (_name, v03Method, v03, v1) => {
    const method = findMethod(v03Method)!;
    expect(method.version).toBe('0.3');
    const converted = v03ParamsToV1(method.name, v03);
    expect(converted).toEqual(v1);
    expect(() => parseParams(method.name, converted)).not.toThrow();
  });

  it('leaves bad params for validation, which names the field', () => {
    const converted = v03ParamsToV1('GetTask', { historyLength: -1 });
    expect(() => parseParams('GetTask', converted)).toThrow(/id: /);
    expect(v03ParamsToV1('SendMessage', 'nonsense')).toBe('nonsense');
  });

  it('passes an invalid tasks/list status on, so validation rejects it', () => {
    const converted = v03ParamsToV1('ListTasks', { status: 'running' });
    expect(() => parseParams('ListTasks', converted)).toThrow(/status/);
  });
});

/** v1.0 params that survive v1 -> v0.3 -> v1 unchanged. */
const ROUND_TRIP: { [M in MethodName]?: ParamsOf<M>[] } = {
  SendMessage: [
    { message: userV1() as ParamsOf<'SendMessage'>['message'] },
    { message: userV1({ taskId: 't1', contextId: 'c1' }) as ParamsOf<'SendMessage'>['message'], configuration: { returnImmediately: true, historyLength: 1 } },
    {
      message: userV1() as ParamsOf<'SendMessage'>['message'],
      configuration: { taskPushNotificationConfig: { url: 'https://hook.test/h', id: 'c', authentication: { scheme: 'Bearer', credentials: 'k' } } },
      metadata: { a: 1 },
    },
  ],
  SendStreamingMessage: [{ message: userV1() as ParamsOf<'SendMessage'>['message'], configuration: { acceptedOutputModes: ['text/plain'] } }],
  GetTask: [{ id: 't1' }, { id: 't1', historyLength: 5 }],
  CancelTask: [{ id: 't1', metadata: { why: 'done' } }],
  SubscribeToTask: [{ id: 't1' }, { id: 't1', afterSequence: 7 }],
  ListTasks: [{ contextId: 'c', status: 'TASK_STATE_COMPLETED', pageSize: 10, includeArtifacts: true }],
  CreateTaskPushNotificationConfig: [{ taskId: 't1', id: 'c1', url: 'https://hook.test/h', token: 'tok' }],
  GetTaskPushNotificationConfig: [{ taskId: 't1', id: 'c1' }],
  ListTaskPushNotificationConfigs: [{ taskId: 't1' }],
  DeleteTaskPushNotificationConfig: [{ taskId: 't1', id: 'c1' }],
  GetExtendedAgentCard: [{}],
};

describe('v1ParamsToV03', () => {
  const cases = Object.entries(ROUND_TRIP).flatMap(([m, list]) => list.map((p, i) => [`${m} #${i + 1}`, m as MethodName, p] as const));
  it.each(cases)('%s round-trips', (_name, method, params) => {
    const v03 = JSON.parse(JSON.stringify(v1ParamsToV03(method, params as never) ?? null));
    expect(v03ParamsToV1(method, v03)).toEqual(params);
  });

  it('always states blocking on message/send (some v0.3 servers default a bare configuration to non-blocking)', () => {
    expect(v1ParamsToV03('SendMessage', { message: userV1() as never })).toMatchObject({ configuration: { blocking: true } });
    expect(v1ParamsToV03('SendMessage', { message: userV1() as never, configuration: { returnImmediately: true } })).toMatchObject({
      configuration: { blocking: false },
    });
    expect(v1ParamsToV03('SendStreamingMessage', { message: userV1() as never })).not.toHaveProperty('configuration');
  });

  it('writes v0.3 shapes: kinds, lowercase roles, push configs and id params', () => {
    expect(v1ParamsToV03('SendMessage', { message: userV1() as never })).toEqual({
      message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      configuration: { blocking: true },
    });
    expect(v1ParamsToV03('GetTaskPushNotificationConfig', { taskId: 't1', id: 'c1' })).toEqual({ id: 't1', pushNotificationConfigId: 'c1' });
    expect(v1ParamsToV03('ListTasks', { status: 'TASK_STATE_INPUT_REQUIRED', tenant: 'x' })).toEqual({ status: 'input-required' });
    expect(v1ParamsToV03('GetExtendedAgentCard', {})).toBeUndefined();
  });

  it('drops historyLength 0, which v0.3 reads as "no limit"', () => {
    expect(v1ParamsToV03('GetTask', { id: 't1', historyLength: 0 })).toEqual({ id: 't1' });
  });

  it('covers every method of the table', () => {
    expect(Object.keys(ROUND_TRIP).sort()).toEqual(Object.keys(METHODS).sort());
  });
});
