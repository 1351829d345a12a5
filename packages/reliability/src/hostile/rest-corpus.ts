import type { A2AErrorKind } from '@taskwire/core';
import type { Random } from '../support/random.js';
import type { ApiRequest } from './api-requests.js';
import { invalidParams, invalidTransition, unknownTask, unsupported } from './api-requests.js';
import type { FixtureTasks } from './fixtures.js';
import { API_KEY, open, terminal } from './fixtures.js';
import { expectRestError } from './http-expect.js';
import type { HttpCall, HttpTarget } from './http-exchange.js';
import { rawHttpCases } from './http-raw-cases.js';
import type { HostileCase } from './hostile-case.js';
import { brief } from './hostile-case.js';
import { badVersion, bogusName, hostileId, invalidUtf8, nested, notAnObject, toJson, tooDeep, withBytes } from './values.js';

const BASE = '/a2a/rest';
/** Past this, a request head is over node's 16 KiB limit: node itself answers 431. */
const HEAD_LIMIT = 14_000;
const HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', 'x-api-key': API_KEY };
/** A path segment: percent-encoded (a lone surrogate, which a URL cannot carry, becomes U+FFFD first). */
const enc = (value: string) => encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

/** The HTTP+JSON request of an operation call whose path parameters are strings (A2A §11.3 routes). */
function restCall(request: ApiRequest): HttpCall {
  const p = request.params as Record<string, unknown>;
  const body = (value: unknown) => ({ headers: HEADERS, body: toJson(value) });
  const id = String(p.id);
  switch (request.method) {
    case 'SendMessage':
      return { method: 'POST', path: `${BASE}/message:send`, ...body(p) };
    case 'SendStreamingMessage':
      return { method: 'POST', path: `${BASE}/message:stream`, ...body(p) };
    case 'GetTask':
      return { method: 'GET', path: `${BASE}/tasks/${enc(id)}${p.historyLength === undefined ? '' : `?historyLength=${enc(String(p.historyLength))}`}`, headers: HEADERS };
    case 'CancelTask':
      return { method: 'POST', path: `${BASE}/tasks/${enc(id)}:cancel`, ...body(p.metadata === undefined ? {} : { metadata: p.metadata }) };
    case 'SubscribeToTask': {
      const resume: Record<string, string> = p.afterSequence === undefined ? {} : { 'last-event-id': String(p.afterSequence) };
      return { method: 'GET', path: `${BASE}/tasks/${enc(id)}:subscribe`, headers: { ...HEADERS, ...resume } };
    }
    case 'CreateTaskPushNotificationConfig':
      return { method: 'POST', path: `${BASE}/tasks/${enc(String(p.taskId))}/pushNotificationConfigs`, ...body({ url: p.url }) };
    case 'GetTaskPushNotificationConfig':
      return { method: 'GET', path: `${BASE}/tasks/${enc(String(p.taskId))}/pushNotificationConfigs/${enc(id)}`, headers: HEADERS };
    case 'DeleteTaskPushNotificationConfig':
      return { method: 'DELETE', path: `${BASE}/tasks/${enc(String(p.taskId))}/pushNotificationConfigs/${enc(id)}`, headers: HEADERS };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', path: `${BASE}/tasks/${enc(String(p.taskId))}/pushNotificationConfigs`, headers: HEADERS };
    case 'ListTasks':
      return { method: 'GET', path: `${BASE}/tasks`, headers: HEADERS };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: `${BASE}/extendedAgentCard`, headers: HEADERS };
  }
}

/**
 * At least `count` malformed or hostile HTTP+JSON requests (seeded), each
 * with the AIP-193 error (HTTP status and ErrorInfo reason) it must get:
 * broken JSON, bodies that are not UTF-8 and non-object bodies, fields
 * under both their ProtoJSON names, unknown routes (404) and verbs (405),
 * bad query parameters, path encodings and Last-Event-IDs, broken messages
 * and deep nesting, unknown, huge and other-tenant task ids, invalid
 * transitions, what the agent does not offer, wrong versions (header and
 * query), credentials and media types, plus {@link rawHttpCases}.
 */
export function restCorpus(target: HttpTarget, fixtures: FixtureTasks, random: Random, count: number): HostileCase[] {
  const restCase = (category: string, name: string, call: HttpCall, kind: A2AErrorKind, status?: number): HostileCase => ({
    category,
    name: `${call.method} ${brief(call.path.slice(BASE.length))}: ${name}`,
    run: async () => {
      if (call.path.length <= HEAD_LIMIT) return expectRestError(await target.send(call), kind, status);
      // Node refuses a head past its limit with 431 and closes at once: the answer may be lost in the reset.
      const answer = await target.send(call).catch((error: NodeJS.ErrnoException) => error);
      if (answer instanceof Error) return answer.code === 'ECONNRESET' || answer.code === 'EPIPE' ? [] : [`the exchange failed: ${answer.message}`];
      return answer.status === 431 ? [] : [`HTTP ${answer.status} instead of 431 for a ${call.path.length}-byte path`];
    },
  });
  const apiCase = (category: string, request: ApiRequest) => restCase(category, request.why, restCall(request), request.expect);
  const anyTask = () => random.pick([...terminal(fixtures), ...open(fixtures)]);
  const sendMessage = (value: unknown): HttpCall => ({ method: 'POST', path: `${BASE}/message:send`, headers: HEADERS, body: typeof value === 'string' ? value : toJson(value) });

  const makers: Array<[number, () => HostileCase]> = [
    [5, () => {
      const whole = JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
      const broken = random.pick([() => whole.slice(0, random.int(1, whole.length - 1)), () => `${whole}}`, () => `{${random.string(random.int(1, 100), '{}[]":,ab ')}`, () => whole.replace(/"/g, "'")])();
      return restCase('broken JSON', brief(broken), sendMessage(broken), 'ParseError');
    }],
    [3, () => {
      const value = notAnObject(random);
      return restCase('wrong types', `a body that is ${brief(value)}`, { ...sendMessage(JSON.stringify(value)), path: random.pick([`${BASE}/message:send`, `${BASE}/message:stream`, `${BASE}/tasks/${enc(anyTask().id)}:cancel`]) }, 'InvalidParams');
    }],
    [4, () => {
      // Segments no route has (a `zz-` prefix), one or two of them (a second could otherwise read as a tenant prefix).
      const segment = () => `zz-${enc(bogusName(random).replace(/\//g, '-'))}`;
      let path = random.chance(0.5) ? `/${segment()}` : `/${segment()}/${segment()}`;
      if (random.chance(0.3)) path = random.pick(['/tasks/a/b/c', '/message', '/message:sendd', '/tasks/x:explode', '/tasks/:cancel', `/tasks/${enc(anyTask().id)}/pushNotificationConfigs/a/b`]);
      return restCase('unknown route', 'nothing is served there', { method: random.pick(['GET', 'POST', 'PUT', 'DELETE']), path: `${BASE}${path}`, headers: HEADERS }, 'MethodNotFound', 404);
    }],
    [2, () => {
      const [verb, path] = random.pick([['PUT', '/message:send'], ['GET', '/message:send'], ['DELETE', `/tasks/${enc(anyTask().id)}`], ['PATCH', '/tasks'], ['POST', `/tasks/${enc(anyTask().id)}`]]);
      return restCase('wrong HTTP method', 'the route exists with other verbs', { method: verb!, path: `${BASE}${path}`, headers: HEADERS }, 'MethodNotFound', 405);
    }],
    [8, () => {
      const request = invalidParams(random, fixtures);
      return request.method.startsWith('Send') ? apiCase('wrong types', request) : apiCase('wrong types', { ...request, method: 'SendMessage', params: { message: notAnObject(random) }, why: 'message is not an object' });
    }],
    [6, () => {
      const [name, query] = random.pick<[string, string]>([
        ['pageSize', random.pick(['0', '101', 'abc', '1.5', '-2', ''])],
        ['historyLength', random.pick(['-1', 'x', '2.5', '99999999999'])],
        ['status', random.pick(['BOGUS', 'completed', '42', '-1', '5x'])],
        ['statusTimestampAfter', random.pick(['yesterday', '2025-13-01T00:00:00Z', '1700000000'])],
        ['pageToken', random.pick(['garbage', random.string(random.int(1, 60), 'abc-_XYZ'), '%E2%82'])],
        ['includeArtifacts', random.pick(['yes', '1', 'TRUE'])],
      ]);
      const value = name === 'pageSize' && query === '' ? '%20' : query;
      return restCase('wrong types', `ListTasks ${name}=${value}`, { method: 'GET', path: `${BASE}/tasks?${name}=${value}`, headers: HEADERS }, 'InvalidParams');
    }],
    [3, () => {
      const task = anyTask();
      const [name, call] = random.pick<[string, HttpCall]>([
        ['historyLength=-1', { method: 'GET', path: `${BASE}/tasks/${enc(task.id)}?historyLength=${random.pick(['-1', 'abc', '0.5'])}`, headers: HEADERS }],
        ['bad percent-encoding', { method: 'GET', path: `${BASE}/tasks/${random.pick(['%E0%A4%A', '%zz', '%', 'a%C3'])}`, headers: HEADERS }],
        ['a Last-Event-ID that is not a sequence', { method: 'GET', path: `${BASE}/tasks/${enc(random.pick(open(fixtures)).id)}:subscribe`, headers: { ...HEADERS, 'last-event-id': random.pick(['abc', '-1', '1.5', '0x10', '9'.repeat(20)]) } }],
      ]);
      return restCase('wrong types', name, call, 'InvalidParams');
    }],
    [3, () => {
      const depth = tooDeep(random);
      const message = random.chance(0.5)
        ? { messageId: 'm', role: 'ROLE_USER', parts: [{ data: nested(depth) }] }
        : { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { x: nested(depth) } };
      return restCase('deep nesting', `nested ${depth} levels`, sendMessage({ message }), 'InvalidParams');
    }],
    [7, () => apiCase('unknown task', unknownTask(random))],
    [2, () => {
      const tenant = random.pick(['other', 'x', hostileId(random).slice(0, 40) || 't']);
      const task = anyTask();
      return restCase('unknown task', `a real task id under tenant ${brief(tenant)}`, { method: 'GET', path: `${BASE}/${enc(tenant)}/tasks/${enc(task.id)}`, headers: HEADERS }, 'TaskNotFound');
    }],
    [7, () => apiCase('invalid transition', invalidTransition(random, fixtures))],
    [3, () => apiCase('not offered', unsupported(random, fixtures))],
    [3, () => {
      const { name, bytes } = invalidUtf8(random);
      const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'echo @@' }] };
      const [path, json] = random.pick<[string, string]>([
        [`${BASE}/message:send`, JSON.stringify({ message })],
        [`${BASE}/message:stream`, JSON.stringify({ message: { ...message, taskId: '@@' } })],
        [`${BASE}/tasks/${enc(anyTask().id)}:cancel`, JSON.stringify({ metadata: { note: '@@' } })],
      ]);
      return restCase('invalid UTF-8', `${name} in the body`, { method: 'POST', path, headers: HEADERS, body: withBytes(json, bytes) }, 'ParseError');
    }],
    [2, () => {
      const task = anyTask();
      const [name, call] = random.pick<[string, HttpCall]>([
        ['historyLength and history_length', { method: 'GET', path: `${BASE}/tasks/${enc(task.id)}?historyLength=1&history_length=1`, headers: HEADERS }],
        ['pageSize and page_size', { method: 'GET', path: `${BASE}/tasks?page_size=2&pageSize=2`, headers: HEADERS }],
        ['returnImmediately and return_immediately', sendMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, configuration: { returnImmediately: true, return_immediately: true } })],
      ]);
      return restCase('wrong types', `a field under both its names: ${name}`, call, 'InvalidParams');
    }],
    [3, () => {
      const version = badVersion(random);
      const viaQuery = random.chance(0.3);
      const { 'a2a-version': _version, ...unversioned } = HEADERS;
      const call: HttpCall = viaQuery
        ? { method: 'GET', path: `${BASE}/tasks/${enc(anyTask().id)}?A2A-Version=${enc(version)}`, headers: unversioned }
        : { method: 'GET', path: `${BASE}/tasks/${enc(anyTask().id)}`, headers: { ...HEADERS, 'a2a-version': version } };
      return restCase('wrong version', `A2A-Version ${version}${viaQuery ? ' (query)' : ''}`, call, 'VersionNotSupported');
    }],
    [3, () => {
      const credentials = random.pick<Record<string, string>>([{}, { 'x-api-key': 'wrong' }, { 'x-api-key': '' }, { authorization: 'Bearer nope' }]);
      const { 'x-api-key': _key, ...rest } = HEADERS;
      return restCase('missing auth', brief(credentials), { method: 'GET', path: `${BASE}/tasks`, headers: { ...rest, ...credentials } }, 'Unauthenticated');
    }],
    [2, () => {
      const type = random.pick(['text/plain', 'application/xml', 'application/x-www-form-urlencoded']);
      return restCase('wrong content type', type, { ...sendMessage({}), headers: { ...HEADERS, 'content-type': type } }, 'ContentTypeNotSupported', 415);
    }],
  ];
  const total = makers.reduce((sum, [weight]) => sum + weight, 0);
  const cases: HostileCase[] = rawHttpCases(target, `${BASE}/message:send`, random, Math.ceil(count * 0.08));
  while (cases.length < count) {
    let roll = random.int(1, total);
    cases.push(makers.find(([weight]) => (roll -= weight) <= 0)![1]());
  }
  return cases;
}
