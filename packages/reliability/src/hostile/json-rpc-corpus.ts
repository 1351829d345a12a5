import type { A2AErrorKind } from '@taskwire/core';
import { findMethod } from '@taskwire/core';
import type { Random } from '../support/random.js';
import type { ApiRequest } from './api-requests.js';
import { invalidParams, invalidTransition, unknownTask, unsupported } from './api-requests.js';
import type { FixtureTasks } from './fixtures.js';
import { GOOD_HEADERS } from './fixtures.js';
import { expectRpcBatch, expectRpcError } from './http-expect.js';
import type { HttpTarget } from './http-exchange.js';
import { rawHttpCases } from './http-raw-cases.js';
import type { HostileCase } from './hostile-case.js';
import { brief } from './hostile-case.js';
import { badVersion, bogusName, invalidUtf8, nested, notAnObject, toJson, tooDeep, withBytes } from './values.js';

const PATH = '/a2a/jsonrpc';
type Id = string | number | null;

/**
 * At least `count` malformed or hostile JSON-RPC requests (seeded), each
 * with the error it must get: broken JSON and bodies that are not UTF-8
 * (-32700), bad envelopes and batches (-32600), unknown methods (-32601),
 * wrong types, deep nesting, bad params and fields given under both their
 * ProtoJSON names (-32602), unknown and huge ids (-32001), invalid
 * transitions (-32004, -32002), what the agent does not offer (-32003,
 * -32004), wrong versions (-32009), missing or wrong credentials (401),
 * wrong media types (415) and verbs (405), notifications (204, never
 * answered), plus the byte-level cases of {@link rawHttpCases}.
 */
export function jsonRpcCorpus(target: HttpTarget, fixtures: FixtureTasks, random: Random, count: number): HostileCase[] {
  let serial = 0;
  const nextId = (): Id => {
    serial++;
    return random.pick<() => Id>([() => serial, () => `case-${serial}`, () => -serial, () => serial + 0.5, () => null, () => `${'i'.repeat(2000)}${serial}`])();
  };
  const post = (body: string | Buffer, headers: Record<string, string> = {}) => target.send({ method: 'POST', path: PATH, headers: { ...GOOD_HEADERS, ...headers }, body });
  const envelope = (id: Id, method: string, params: unknown) => toJson({ jsonrpc: '2.0', id, method, params });
  const rpcCase = (category: string, name: string, body: string | Buffer, kind: A2AErrorKind, id: Id, headers?: Record<string, string>, status?: number): HostileCase => ({
    category,
    name,
    run: async () => expectRpcError(await post(body, headers), kind, id, status),
  });
  const apiCase = (category: string, request: ApiRequest): HostileCase => {
    const id = nextId();
    return rpcCase(category, `${request.method}: ${request.why}`, envelope(id, request.method, request.params), request.expect, id);
  };
  const valid = () => ({ id: nextId(), method: 'GetTask', params: { id: fixtures.completed.id } });

  const makers: Array<[number, () => HostileCase]> = [
    [6, () => {
      const whole = envelope(nextId(), 'GetTask', { id: fixtures.completed.id });
      const broken = random.pick([
        () => whole.slice(0, random.int(0, whole.length - 1)),
        () => `${whole}${random.pick(['}', ']', ',', 'x', '{}'])}`,
        () => `{${random.string(random.int(1, 200), '{}[]":,abc0129 \\')}`,
        () => whole.replace(/"/g, "'"),
        () => whole.replace(':', random.pick(['=', ';', ''])),
        () => `\ufeff${random.pick(['NaN', 'undefined', '[1,]', '{"a":1,}', '"unterminated'])}`,
      ])();
      return rpcCase('broken JSON', `${broken.length} bytes: ${brief(broken)}`, broken, 'ParseError', null);
    }],
    [3, () => {
      // Replaced by U+FFFD the bytes would name another task, or change the message: the body is refused whole, before its id is read.
      const { name, bytes } = invalidUtf8(random);
      const [where, json] = random.pick<[string, string]>([
        ['a task id', envelope(nextId(), 'GetTask', { id: '@@' })],
        ['a message text', envelope(nextId(), 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'echo @@' }] } })],
        ['a member name', envelope(nextId(), 'ListTasks', { '@@': 1 })],
      ]);
      return rpcCase('invalid UTF-8', `${name} in ${where}`, withBytes(json, bytes), 'ParseError', null);
    }],
    [5, () => {
      const id = nextId();
      const bad = random.pick<[string, unknown, Id]>([
        ['a bare value', random.pick([1, 'text', true, null]), null],
        ['no jsonrpc member', { id, method: 'GetTask', params: {} }, id],
        ['jsonrpc "1.0"', { jsonrpc: random.pick(['1.0', 2, '2', null]), id, method: 'GetTask', params: {} }, id],
        ['method not a string', { jsonrpc: '2.0', id, method: random.pick([5, null, ['GetTask'], { name: 'GetTask' }]) }, id],
        ['an id that is an object', { jsonrpc: '2.0', id: random.pick([{}, [1], true]), method: 'GetTask', params: {} }, null],
        ['an empty batch', [], null],
      ]);
      return rpcCase('bad envelope', bad[0], JSON.stringify(bad[1]), 'InvalidRequest', bad[2]);
    }],
    [2, () => {
      const items = Array.from({ length: random.int(1, 12) }, () => random.pick<[unknown, Id]>([[5, null], [{ jsonrpc: '1.0', id: 'b', method: 'GetTask' }, 'b'], [{ jsonrpc: '2.0', id: 7, method: 5 }, 7], [[], null]]));
      return { category: 'bad envelope', name: `a batch of ${items.length} invalid requests`, run: async () => expectRpcBatch(await post(JSON.stringify(items.map((i) => i[0]))), 'InvalidRequest', items.map((i) => i[1])) };
    }],
    [5, () => {
      let name = bogusName(random);
      while (findMethod(name)) name = bogusName(random);
      if (random.chance(0.1)) name = `Get${'Task'.repeat(random.int(10_000, 60_000))}`;
      const id = nextId();
      return rpcCase('unknown method', `method ${brief(name)}`, envelope(id, name, {}), 'MethodNotFound', id);
    }],
    [12, () => apiCase('wrong types', invalidParams(random, fixtures))],
    [2, () => {
      const id = nextId();
      const params = notAnObject(random);
      return rpcCase('wrong types', `params ${brief(params)}`, envelope(id, random.pick(['GetTask', 'SendMessage', 'ListTasks']), params), 'InvalidParams', id);
    }],
    [3, () => {
      const id = nextId();
      const depth = tooDeep(random);
      const where = random.pick(['metadata', 'data']);
      const message = { messageId: `m${serial}`, role: 'ROLE_USER', parts: [where === 'data' ? { data: nested(depth) } : { text: 'hi' }], ...(where === 'metadata' && { metadata: { x: nested(depth) } }) };
      return rpcCase('deep nesting', `message ${where} nested ${depth} levels`, envelope(id, 'SendMessage', { message }), 'InvalidParams', id);
    }],
    [1, () => {
      const id = nextId();
      const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"GetTask","params":{"id":"no-such-task","ignored":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
      return rpcCase('deep nesting', 'an unknown field nested 50000 levels (ignored)', body, 'TaskNotFound', id);
    }],
    [1, () => {
      const depth = random.int(1_000, 100_000);
      return { category: 'deep nesting', name: `a batch nested ${depth} levels`, run: async () => expectRpcBatch(await post(`[${'['.repeat(depth)}${']'.repeat(depth)}]`), 'InvalidRequest', [null]) };
    }],
    [8, () => apiCase('unknown task', unknownTask(random))],
    [8, () => apiCase('invalid transition', invalidTransition(random, fixtures))],
    [3, () => apiCase('not offered', unsupported(random, fixtures))],
    [3, () => {
      const { id, method, params } = valid();
      const version = random.chance(0.1) ? `1.${'0'.repeat(random.int(4_000, 8_000))}1` : badVersion(random);
      return rpcCase('wrong version', `A2A-Version ${brief(version)}`, envelope(id, method, params), 'VersionNotSupported', id, { 'a2a-version': version });
    }],
    [3, () => {
      const { id, method, params } = valid();
      const credentials = random.pick<Record<string, string>>([{ 'x-api-key': '' }, { 'x-api-key': 'wrong' }, { 'x-api-key': random.string(random.int(1, 300), 'k3y') }, { authorization: 'Bearer nope' }, { authorization: `Basic ${btoa('a:b')}` }]);
      const headers = { ...GOOD_HEADERS, ...credentials };
      if (!('x-api-key' in credentials)) delete (headers as Record<string, string>)['x-api-key'];
      const name = `credentials ${brief(credentials)}`;
      return { category: 'missing auth', name, run: async () => expectRpcError(await target.send({ method: 'POST', path: PATH, headers, body: envelope(id, method, params) }), 'Unauthenticated', null, 401) };
    }],
    [2, () => {
      const type = random.pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/jsonx']);
      return rpcCase('wrong content type', `Content-Type ${type}`, envelope(1, 'GetTask', { id: 'x' }), 'ContentTypeNotSupported', null, { 'content-type': type }, 415);
    }],
    [1, () => {
      const verb = random.pick(['GET', 'PUT', 'DELETE', 'PATCH']);
      return { category: 'wrong HTTP method', name: verb, run: async () => expectRpcError(await target.send({ method: verb, path: PATH, headers: GOOD_HEADERS }), 'InvalidRequest', null, 405) };
    }],
    [2, () => {
      const request = random.pick([invalidParams(random, fixtures), unknownTask(random), invalidTransition(random, fixtures), unsupported(random, fixtures)]);
      const body = toJson({ jsonrpc: '2.0', method: request.method, params: request.params });
      return {
        category: 'notification',
        name: `${request.method} without an id (${request.why}): not answered`,
        run: async () => {
          const answer = await post(body);
          return answer.status === 204 && answer.body === '' ? [] : [`HTTP ${answer.status} ${answer.body.slice(0, 200)} instead of an empty 204`];
        },
      };
    }],
  ];
  const total = makers.reduce((sum, [weight]) => sum + weight, 0);
  const raw = rawHttpCases(target, PATH, random, Math.ceil(count * 0.08));
  const cases: HostileCase[] = [...raw];
  while (cases.length < count) {
    let roll = random.int(1, total);
    const [, make] = makers.find(([weight]) => (roll -= weight) <= 0)!;
    cases.push(make());
  }
  return cases;
}
