import type { A2AErrorKind, MethodName } from '@taskwire/core';
import type { Random } from '../support/random.js';
import type { FixtureTasks } from './fixtures.js';
import { open, terminal } from './fixtures.js';
import { badCount, hostileId, nested, notAnObject, notAString, tooDeep } from './values.js';

/** An operation call that must fail with `expect`, whatever wire carries it. */
export interface ApiRequest {
  readonly method: MethodName;
  readonly params: unknown;
  readonly why: string;
  readonly expect: A2AErrorKind;
}

const goodMessage = (extra: Record<string, unknown> = {}) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra });

/** SendMessage params whose message is broken in one place (`field: value`). */
function brokenMessage(random: Random): { params: unknown; why: string } {
  const depth = tooDeep(random);
  const variants: Array<[string, unknown]> = [
    ['messageId', random.pick(['', ...[notAString(random)]])],
    ['role', random.pick(['ROLE_AGENT', 'user', 'ROLE_UNSPECIFIED', 'agent', 0, 2, 99, null, ''])],
    ['parts', random.pick([[], 'hello', null, {}, [{}], [{ text: 5 }], [{ text: 'a', url: 'b' }], [{ raw: 'not base64!' }], [{ url: '' }], [null]])],
    ['parts', [{ data: nested(depth) }]],
    ['metadata', random.pick([['not', 'an', 'object'], 'text', 7, null])],
    ['metadata', { deep: nested(depth) }],
    ['referenceTaskIds', random.pick([[''], 'x', [5], {}])],
    ['extensions', random.pick(['x', [1], {}])],
    ['contextId', notAString(random)],
    ['taskId', random.pick([5, true, {}, []])],
  ];
  const [field, value] = random.pick(variants);
  const message = goodMessage({ [field]: value });
  if (random.chance(0.1)) return { params: { message: notAnObject(random) }, why: 'message is not an object' };
  if (random.chance(0.05)) return { params: { configuration: {} }, why: 'no message' };
  if (random.chance(0.15)) {
    const configuration = random.pick([{ historyLength: badCount(random) }, { returnImmediately: 'yes' }, { acceptedOutputModes: 'text/plain' }, 'fast']);
    return { params: { message: goodMessage(), configuration }, why: `configuration ${JSON.stringify(configuration)}` };
  }
  return { params: { message }, why: `message.${field} is ${field === 'parts' || field === 'metadata' ? 'broken' : JSON.stringify(value)}` };
}

/** A call that names one field twice, by its JSON name and by its proto field name (ProtoJSON lets either be used, not both). */
function bothNames(random: Random, fixtures: FixtureTasks): [MethodName, unknown, string] {
  const id = random.pick([...terminal(fixtures), ...open(fixtures)]).id;
  return random.pick<[MethodName, unknown, string]>([
    ['GetTask', { id, historyLength: 1, history_length: 1 }, 'historyLength and history_length'],
    ['SendMessage', { message: goodMessage({ messageId: 'm', message_id: 'm' }) }, 'message.messageId and message.message_id'],
    ['SendStreamingMessage', { message: goodMessage({ parts: [{ text: 'hi', mediaType: 'text/plain', media_type: 'text/plain' }] }) }, 'a part’s mediaType and media_type'],
    ['SendMessage', { message: goodMessage(), configuration: { returnImmediately: true, return_immediately: true } }, 'returnImmediately and return_immediately'],
    ['ListTasks', { pageSize: 5, page_size: 5 }, 'pageSize and page_size'],
  ]);
}

/** Calls whose params break the method table's schema: InvalidParams, naming the field. */
export function invalidParams(random: Random, fixtures: FixtureTasks): ApiRequest {
  const idParams = (): [unknown, string] =>
    random.pick<[unknown, string]>([
      [{}, 'no id'],
      [{ id: '' }, 'an empty id'],
      [{ id: notAString(random) }, 'an id that is not a string'],
    ]);
  const choice = random.int(0, 8);
  const request = (method: MethodName, params: unknown, why: string): ApiRequest => ({ method, params, why, expect: 'InvalidParams' });
  switch (choice) {
    case 0:
    case 1: {
      const { params, why } = brokenMessage(random);
      return request(random.pick<MethodName>(['SendMessage', 'SendStreamingMessage']), params, why);
    }
    case 2: {
      const [params, why] = idParams();
      return request(random.pick<MethodName>(['GetTask', 'CancelTask', 'SubscribeToTask']), params, why);
    }
    case 3: {
      const target = random.pick([...terminal(fixtures), ...open(fixtures)]);
      return random.chance(0.5)
        ? request('GetTask', { id: target.id, historyLength: badCount(random) }, 'historyLength out of range')
        : request('SubscribeToTask', { id: target.id, afterSequence: badCount(random) }, 'afterSequence out of range');
    }
    case 4: {
      const field = random.pick(['pageSize', 'historyLength', 'status', 'statusTimestampAfter', 'pageToken', 'includeArtifacts', 'contextId']);
      const value = {
        pageSize: random.pick([0, 101, ...[badCount(random)]]),
        historyLength: badCount(random),
        status: random.pick(['BOGUS', 'completed', 'TASK_STATE_RUNNING', 42, -1]),
        statusTimestampAfter: random.pick(['yesterday', '2025-01-01', '2025-01-01T00:00:00+02:00', 123]),
        pageToken: random.pick(['garbage', 'dDE', random.string(random.int(1, 80), 'abcXYZ019-_'), '!!!']),
        includeArtifacts: random.pick(['yes', 1, null]),
        contextId: random.pick([5, {}, []]),
      }[field];
      return request('ListTasks', { [field]: value }, `ListTasks ${field} ${JSON.stringify(value)}`);
    }
    case 5: {
      // Continuing a live task in a way the service refuses before touching it.
      const target = random.pick(open(fixtures));
      return random.chance(0.5)
        ? request('SendMessage', { message: goodMessage({ taskId: target.id, contextId: `other-${random.int(0, 1e6)}` }) }, 'a contextId that is not the task’s')
        : request('SendMessage', { message: goodMessage({ taskId: target.id, role: 'ROLE_AGENT' }) }, 'an agent message from the client');
    }
    case 6:
      return request('CancelTask', { id: random.pick(open(fixtures)).id, metadata: random.pick([[1], 'x', { deep: nested(tooDeep(random)) }]) }, 'CancelTask metadata broken');
    case 7:
      return request(...bothNames(random, fixtures));
    default: {
      // Params are checked before anything else, so these are InvalidParams even where push is not supported.
      const broken: Array<[MethodName, unknown]> = [
        ['CreateTaskPushNotificationConfig', random.pick([{}, { taskId: 5, url: 'https://x.test' }, { taskId: 'x' }, { taskId: 'x', url: 'ftp://x.test' }, { taskId: 'x', url: 'not a url' }])],
        ['GetTaskPushNotificationConfig', random.pick([{}, { taskId: 'x' }, { taskId: 'x', id: 7 }, { taskId: '', id: 'c' }])],
        ['DeleteTaskPushNotificationConfig', random.pick([{}, { id: 'c' }, { taskId: [], id: 'c' }])],
        ['ListTaskPushNotificationConfigs', random.pick([{}, { taskId: 5 }, { taskId: 'x', pageSize: -1 }, { taskId: 'x', pageSize: 101 }])],
        ['GetExtendedAgentCard', { tenant: random.pick([5, {}, []]) }],
      ];
      const [method, params] = random.pick(broken);
      return request(method, params, `${method} with broken params`);
    }
  }
}

/** Calls naming tasks that do not exist (ids from the hostile set): TaskNotFound. */
export function unknownTask(random: Random): ApiRequest {
  const id = hostileId(random);
  const method = random.pick<MethodName>(['GetTask', 'CancelTask', 'SubscribeToTask', 'SendMessage', 'SendStreamingMessage']);
  const params = method.startsWith('Send') ? { message: goodMessage({ taskId: id }) } : { id };
  return { method, params, why: `unknown task id of ${id.length} chars`, expect: 'TaskNotFound' };
}

/** Calls that would move a task against the lifecycle: UnsupportedOperation or TaskNotCancelable; the task stays as it is. */
export function invalidTransition(random: Random, fixtures: FixtureTasks): ApiRequest {
  const target = random.pick(terminal(fixtures));
  const state = target.status.state;
  switch (random.int(0, 2)) {
    case 0:
      return {
        method: random.pick<MethodName>(['SendMessage', 'SendStreamingMessage']),
        params: { message: goodMessage({ taskId: target.id, parts: [{ text: random.pick(['insta', 'again', 'echo x']) }] }) },
        why: `a message to a ${state} task`,
        expect: 'UnsupportedOperation',
      };
    case 1: {
      const cancelable = terminal(fixtures).filter((t) => t.status.state !== 'TASK_STATE_CANCELED');
      const task = random.pick(cancelable);
      return { method: 'CancelTask', params: { id: task.id }, why: `cancel a ${task.status.state} task`, expect: 'TaskNotCancelable' };
    }
    default: {
      // With a resume point beyond the task's log the client claims events the store does not have: that is said
      // first (InvalidParams, as after a failover that lost them), whatever the task's state.
      const afterSequence = random.pick([undefined, 1_000_000, 2_147_483_647]);
      return afterSequence === undefined
        ? { method: 'SubscribeToTask', params: { id: target.id }, why: `subscribe to a ${state} task`, expect: 'UnsupportedOperation' }
        : { method: 'SubscribeToTask', params: { id: target.id, afterSequence }, why: `subscribe to a ${state} task after a sequence beyond its log`, expect: 'InvalidParams' };
    }
  }
}

/** Calls for what the reference agent does not offer: push notifications and an extended card. */
export function unsupported(random: Random, fixtures: FixtureTasks): ApiRequest {
  const taskId = random.pick([...terminal(fixtures), ...open(fixtures)]).id;
  const push: ApiRequest[] = [
    { method: 'CreateTaskPushNotificationConfig', params: { taskId, url: 'https://example.com/hook' }, why: 'create a push config', expect: 'PushNotificationNotSupported' },
    { method: 'GetTaskPushNotificationConfig', params: { taskId, id: 'c1' }, why: 'get a push config', expect: 'PushNotificationNotSupported' },
    { method: 'ListTaskPushNotificationConfigs', params: { taskId }, why: 'list push configs', expect: 'PushNotificationNotSupported' },
    { method: 'DeleteTaskPushNotificationConfig', params: { taskId, id: 'c1' }, why: 'delete a push config', expect: 'PushNotificationNotSupported' },
    { method: 'GetExtendedAgentCard', params: {}, why: 'the extended card', expect: 'UnsupportedOperation' },
  ];
  return random.pick(push);
}
