import type { A2AErrorKind, MethodName } from '@taskwire/core';
import { ERROR_TABLE, METHOD_NAMES, METHODS } from '@taskwire/core';
import { isReadMethod } from '@taskwire/server-ws';
import type { Random } from '../support/random.js';
import type { ApiRequest } from './api-requests.js';
import { invalidParams, invalidTransition, unknownTask, unsupported } from './api-requests.js';
import type { FixtureTasks } from './fixtures.js';
import { API_KEY, open, terminal } from './fixtures.js';
import type { HostileCase } from './hostile-case.js';
import { brief } from './hostile-case.js';
import { badVersion, bogusName, nested, toJson, tooDeep } from './values.js';
import { closeCodeAfter, LanePool, rawFrame, WsLane } from './ws-lanes.js';

const GOOD = { 'x-api-key': API_KEY };
type Id = string | number | null;

/** The tRPC procedure type an operation is served as. */
const typeOf = (method: MethodName) => (METHODS[method].kind === 'stream' ? 'subscription' : isReadMethod(method) ? 'query' : 'mutation');

/** The problems of a tRPC error message against the A2A kind and the id it must carry. */
function replyProblems(text: string, kind: A2AErrorKind, id: Id): string[] {
  let reply: { id?: unknown; error?: { message?: unknown; data?: { a2a?: { code?: unknown; reason?: unknown } } }; result?: unknown };
  try {
    reply = JSON.parse(text);
  } catch {
    return [`a reply that is not JSON: ${text.slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (reply.id !== id) problems.push(`reply id ${JSON.stringify(reply.id)?.slice(0, 60)} instead of ${JSON.stringify(id)?.slice(0, 60)}`);
  const a2a = reply.error?.data?.a2a;
  if (!reply.error) return [...problems, `not an error: ${text.slice(0, 200)}`];
  if (a2a?.reason !== ERROR_TABLE[kind].reason || a2a.code !== ERROR_TABLE[kind].code) {
    problems.push(`A2A error ${String(a2a?.code)} ${String(a2a?.reason)} (${String(reply.error.message).slice(0, 200)}) instead of ${ERROR_TABLE[kind].code} ${ERROR_TABLE[kind].reason}`);
  }
  return problems;
}

/**
 * At least `count` malformed or hostile WebSocket frames and connections
 * (seeded), each with the answer it must get: on open, authenticated
 * connections (one request at a time each), unreadable frames and
 * envelopes, binary frames (PARSE_ERROR), unknown procedures and wrong
 * procedure types (METHOD_NOT_FOUND), resume ids of another task
 * (INVALID_PARAMS), the shared bad-params, unknown-task,
 * transition and not-offered calls; on connections of their own, missing or
 * wrong credentials (close 4401), wrong versions (4400), upgrades on other
 * paths (404), frames past the size limit (1009), frames that break RFC
 * 6455 (1002, 1007) and frames cut short.
 */
export async function wsCorpus(url: string, fixtures: FixtureTasks, random: Random, count: number): Promise<{ cases: HostileCase[]; close(): void }> {
  const pool = new LanePool(await Promise.all(Array.from({ length: 6 }, () => WsLane.open(url, GOOD))));
  let serial = 0;
  const nextId = (): Exclude<Id, null> => random.pick<() => Exclude<Id, null>>([() => ++serial, () => `c${++serial}`, () => -(++serial) - 0.5])();
  const frameCase = (category: string, name: string, frame: string | Buffer, kind: A2AErrorKind, id: Id): HostileCase => ({
    category,
    name,
    run: () => pool.with(async (lane) => replyProblems(await lane.exchange(frame), kind, id)),
  });
  const apiCase = (category: string, request: ApiRequest): HostileCase => {
    const id = nextId();
    const frame = toJson({ id, method: typeOf(request.method), params: { path: request.method, input: request.params } });
    return frameCase(category, `${request.method}: ${request.why}`, frame, request.expect, id);
  };
  const closeCase = (category: string, name: string, expected: number | string, headers: Record<string, string>, act: Parameters<typeof closeCodeAfter>[2] = () => undefined, at = url): HostileCase => ({
    category,
    name,
    run: async () => {
      const code = await closeCodeAfter(at, headers, act);
      return code === expected ? [] : [`closed with ${code} instead of ${expected}`];
    },
  });
  const raw = (bytes: Buffer, end = false): Parameters<typeof closeCodeAfter>[2] => (_socket, socket) => {
    socket.write(bytes);
    if (end) socket.end();
  };
  const anyTask = () => random.pick([...terminal(fixtures), ...open(fixtures)]);

  const makers: Array<[number, () => HostileCase]> = [
    [6, () => {
      const whole = JSON.stringify({ id: 1, method: 'query', params: { path: 'GetTask', input: { id: anyTask().id } } });
      const broken = random.pick([() => whole.slice(0, random.int(1, whole.length - 1)), () => `${whole}}`, () => `{${random.string(random.int(1, 100), '{}[]":,ab ')}`, () => whole.replace(/"/g, "'")])();
      return frameCase('broken JSON', brief(broken), broken, 'ParseError', null);
    }],
    [5, () => {
      const [name, value] = random.pick<[string, unknown]>([
        ['a bare value', random.pick([1, 'text', true, null])],
        ['no id', { method: 'query', params: { path: 'GetTask', input: { id: 'x' } } }],
        ['an id that is an object', { id: random.pick([{}, [1], true]), method: 'query', params: { path: 'GetTask', input: {} } }],
        ['an unknown procedure type', { id: 1, method: random.pick(['bogus', 'call', 'connectionParams', 'QUERY']), params: { path: 'GetTask', input: {} } }],
        ['no params', { id: 2, method: random.pick(['query', 'mutation']) }],
        ['a path that is not a string', { id: 3, method: 'query', params: { path: random.pick([5, null, ['GetTask']]) } }],
        ['jsonrpc 1.0', { jsonrpc: '1.0', id: 4, method: 'query', params: { path: 'GetTask', input: {} } }],
      ]);
      return frameCase('bad envelope', name, JSON.stringify(value), 'ParseError', null);
    }],
    [2, () => frameCase('binary frame', 'a binary frame', Buffer.from(random.string(random.int(1, 200), 'ab{}"')), 'ParseError', null)],
    [5, () => {
      const id = nextId();
      let path = random.chance(0.8) ? bogusName(random) : `${random.pick(METHOD_NAMES)}.${random.string(3, 'xyz')}`;
      if ((METHOD_NAMES as string[]).includes(path)) path = `${path}x`;
      if (random.chance(0.05)) path = 'Get'.repeat(random.int(10_000, 100_000));
      const method = random.pick(METHOD_NAMES);
      const wrongType = random.pick(['query', 'mutation', 'subscription'].filter((t) => t !== typeOf(method)));
      const [name, frame] = random.chance(0.5)
        ? [`procedure ${brief(path)}`, { id, method: 'query', params: { path, input: {} } }]
        : [`${method} as a ${wrongType}`, { id, method: wrongType, params: { path: method, input: {} } }];
      return frameCase('unknown method', name, JSON.stringify(frame), 'MethodNotFound', id);
    }],
    [12, () => apiCase('wrong types', invalidParams(random, fixtures))],
    [2, () => {
      const id = nextId();
      const depth = tooDeep(random);
      const input = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: nested(depth) }] } };
      return frameCase('deep nesting', `a data part nested ${depth} levels`, toJson({ id, method: 'mutation', params: { path: 'SendMessage', input } }), 'InvalidParams', id);
    }],
    [2, () => {
      // A resume id is `<sequence>:<taskId>`: resuming one task's stream from another task's event would skip events of the task asked for.
      const [asked, other] = random.pick([...terminal(fixtures), ...open(fixtures)].flatMap((a, _, all) => all.filter((b) => b.id !== a.id).map((b) => [a, b] as const)));
      const id = nextId();
      const input = { id: asked.id, lastEventId: `${random.int(0, 5)}:${other.id}` };
      return frameCase('wrong types', 'SubscribeToTask resuming from an event of another task', JSON.stringify({ id, method: 'subscription', params: { path: 'SubscribeToTask', input } }), 'InvalidParams', id);
    }],
    [8, () => apiCase('unknown task', unknownTask(random))],
    [8, () => apiCase('invalid transition', invalidTransition(random, fixtures))],
    [3, () => apiCase('not offered', unsupported(random, fixtures))],
    [1, () => {
      const credentials = random.pick<Record<string, string>>([{}, { 'x-api-key': 'wrong' }, { authorization: 'Bearer nope' }, { 'x-api-key': random.string(random.int(1, 200), 'k3y') }]);
      return closeCase('missing auth', `credentials ${brief(credentials)}`, 4401, credentials);
    }],
    [1, () => {
      const version = random.chance(0.3) ? '0.3' : badVersion(random);
      return closeCase('wrong version', `a2a-version ${version}`, 4400, { ...GOOD, 'a2a-version': version });
    }],
    [1, () => closeCase('unknown route', 'an upgrade on another path', 'HTTP 404', GOOD, undefined, `${url}${random.pick(['x', '/', '-admin', 'sss'])}`)],
    [1, () => closeCase('oversized body', 'a frame declaring 17 MiB', 1009, GOOD, raw(rawFrame(0x81, Buffer.from('{'), { declaredLength: 17 * 1024 * 1024 })))],
    [4, () => {
      const [name, bytes, code] = random.pick<[string, Buffer, number]>([
        ['an unmasked frame', rawFrame(0x81, Buffer.from('{"id":1}'), { masked: false }), 1002],
        ['a reserved opcode', rawFrame(0x80 | random.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xf]), Buffer.from('x')), 1002],
        ['RSV bits without an extension', rawFrame(random.pick([0xc1, 0xa1, 0x91]), Buffer.from('{}')), 1002],
        ['a text frame that is not UTF-8', rawFrame(0x81, Buffer.from([0x7b, 0xc3, 0x28, 0x7d])), 1007],
        ['a ping of 200 bytes', rawFrame(0x89, Buffer.alloc(200, 0x61)), 1002],
        ['a fragmented ping', rawFrame(0x09, Buffer.from('x')), 1002],
        ['a continuation with nothing to continue', rawFrame(0x80, Buffer.from('x')), 1002],
        ['a close frame with code 999', rawFrame(0x88, Buffer.from([0x03, 0xe7])), 1002],
        ['a close frame of one byte', rawFrame(0x88, Buffer.from([0x03])), 1002],
      ]);
      return closeCase('protocol violation', name, code, GOOD, raw(bytes));
    }],
    [1, () => {
      const declared = random.int(20, 5_000);
      return closeCase('truncated frames', `a frame declaring ${declared} bytes, cut, then FIN`, 1006, GOOD, raw(rawFrame(0x81, Buffer.from('{"id":'), { declaredLength: declared }), true));
    }],
  ];
  const total = makers.reduce((sum, [weight]) => sum + weight, 0);
  const cases: HostileCase[] = [];
  while (cases.length < count) {
    let roll = random.int(1, total);
    cases.push(makers.find(([weight]) => (roll -= weight) <= 0)![1]());
  }
  return { cases, close: () => pool.close() };
}
