import * as grpc from '@grpc/grpc-js';
import type { A2AErrorKind } from '@taskwire/core';
import { ERROR_TABLE, GRPC_STATUS } from '@taskwire/core';
import type { Random } from '../support/random.js';
import type { ApiRequest } from './api-requests.js';
import { invalidTransition, unknownTask, unsupported } from './api-requests.js';
import type { FixtureTasks } from './fixtures.js';
import { API_KEY, open, terminal } from './fixtures.js';
import { h2Cases } from './grpc-h2-cases.js';
import type { HostileCase } from './hostile-case.js';
import { brief } from './hostile-case.js';
import { bytesField, errorInfoReason, message, nestedStruct, nestedValue, tag, userMessage, varint, varintField } from './protobuf.js';
import { badVersion, bogusName, invalidUtf8, tooDeep } from './values.js';

/** The service every rpc lives in. */
export const SERVICE = '/lf.a2a.v1.A2AService/';
const STREAMS = new Set(['SendStreamingMessage', 'SubscribeToTask']);
const identity = (bytes: Buffer) => bytes;

/** What a gRPC call must end with: a status code and, for A2A errors, the ErrorInfo reason. */
export interface GrpcExpectation {
  readonly code: grpc.status;
  readonly reason?: string;
}

/** The gRPC expectation of an A2A error kind. */
export const a2a = (kind: A2AErrorKind): GrpcExpectation => ({ code: GRPC_STATUS[ERROR_TABLE[kind].grpc], reason: ERROR_TABLE[kind].reason });

/** The protobuf request of an operation call whose fields are all strings (ids, texts, urls). */
function encode(request: ApiRequest): { bytes: Buffer; metadata: Record<string, string> } {
  const p = request.params as Record<string, any>;
  switch (request.method) {
    case 'GetTask':
    case 'CancelTask':
      return { bytes: bytesField(2, String(p.id)), metadata: {} };
    case 'SubscribeToTask':
      return { bytes: bytesField(2, String(p.id)), metadata: p.afterSequence === undefined ? {} : { 'taskwire-after-sequence': String(p.afterSequence) } };
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { bytes: bytesField(2, userMessage(String(p.message.parts[0].text), bytesField(3, String(p.message.taskId)))), metadata: {} };
    case 'CreateTaskPushNotificationConfig':
      return { bytes: message(bytesField(3, String(p.taskId)), bytesField(4, String(p.url))), metadata: {} };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { bytes: message(bytesField(2, String(p.taskId)), bytesField(3, String(p.id))), metadata: {} };
    case 'ListTaskPushNotificationConfigs':
      return { bytes: bytesField(1, String(p.taskId)), metadata: {} };
    default:
      return { bytes: Buffer.alloc(0), metadata: {} };
  }
}

/**
 * At least `count` malformed or hostile gRPC requests (seeded), sent as raw
 * bytes through a generic @grpc/grpc-js client (or raw HTTP/2 frames, see
 * {@link h2Cases}), each with the status (and A2A ErrorInfo reason) it must
 * end with: undecodable protobuf, string fields that are not UTF-8, wrong
 * wire types and missing or invalid fields, nesting past protobuf's recursion limit, unknown and huge task ids,
 * invalid transitions, what the agent does not offer, unknown methods,
 * wrong versions and credentials, oversized messages.
 */
export function grpcCorpus(url: string, fixtures: FixtureTasks, random: Random, count: number): { cases: HostileCase[]; close(): void } {
  const client = new grpc.Client(url, grpc.credentials.createInsecure());
  const h2 = h2Cases(url, random, Math.ceil(count * 0.06));
  const deep = new Map<number, Buffer>();

  const call = (path: string, bytes: Buffer, extra: Record<string, string | undefined>) =>
    new Promise<{ status: grpc.StatusObject | grpc.ServiceError; items: number }>((resolve) => {
      const metadata = new grpc.Metadata();
      for (const [key, value] of Object.entries({ 'x-api-key': API_KEY, ...extra })) if (value !== undefined) metadata.set(key, value);
      const method = path.slice(path.lastIndexOf('/') + 1);
      if (STREAMS.has(method) && path.startsWith(SERVICE)) {
        let items = 0;
        const stream = client.makeServerStreamRequest(path, identity, identity, bytes, metadata);
        stream.on('data', () => items++);
        stream.on('error', (error: grpc.ServiceError) => resolve({ status: error, items }));
        stream.on('status', (status) => status.code === grpc.status.OK && resolve({ status, items }));
      } else {
        client.makeUnaryRequest(path, identity, identity, bytes, metadata, (error) =>
          resolve({ status: error ?? { code: grpc.status.OK, details: 'OK', metadata: new grpc.Metadata() }, items: 0 }),
        );
      }
    });
  const grpcCase = (category: string, name: string, path: string, bytes: Buffer, expect: GrpcExpectation, extra: Record<string, string | undefined> = {}): HostileCase => ({
    category,
    name: `${path.slice(SERVICE.length) || path}: ${name}`,
    run: async () => {
      const { status, items } = await call(path, bytes, extra);
      const problems: string[] = [];
      if (status.code !== expect.code) problems.push(`status ${grpc.status[status.code]} (${status.details.slice(0, 200)}) instead of ${grpc.status[expect.code]}`);
      const bin = status.metadata?.get('grpc-status-details-bin')[0];
      const reason = bin instanceof Buffer ? errorInfoReason(bin) : undefined;
      if (expect.reason !== undefined && reason !== expect.reason) problems.push(`ErrorInfo reason ${String(reason)} instead of ${expect.reason}`);
      if (items > 0) problems.push(`${items} stream items before the error`);
      return problems;
    },
  });
  const apiCase = (category: string, request: ApiRequest) => {
    const { bytes, metadata } = encode(request);
    return grpcCase(category, request.why, SERVICE + request.method, bytes, a2a(request.expect), metadata);
  };
  const anyId = () => random.pick([...terminal(fixtures), ...open(fixtures)]).id;
  const idMethod = () => random.pick(['GetTask', 'CancelTask', 'SubscribeToTask']);
  const invalid = a2a('InvalidParams');

  const makers: Array<[number, () => HostileCase]> = [
    [8, () => {
      const method = random.pick(['GetTask', 'SendMessage', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'CreateTaskPushNotificationConfig']);
      const [name, bytes] = random.pick<[string, Buffer]>([
        ['wire type 6', Buffer.concat([tag(random.int(1, 9), 6), Buffer.from(random.string(random.int(0, 8), 'ab'))])],
        ['wire type 7', tag(random.int(1, 9), 7)],
        ['a group that never ends', Buffer.concat([tag(random.int(1, 9), 3), Buffer.from([1])])],
        ['a varint cut short', Buffer.from([0x18, ...Array(random.int(1, 8)).fill(0xff)])],
        ['a length past the end', Buffer.concat([tag(2, 2), varint(random.int(10, 1_000_000)), Buffer.from('short')])],
      ]);
      // Field 3 is read as a varint by GetTask (historyLength) and ListTasks (status); field 2 of SendMessage is the message.
      const specific = random.pick<[string, string, Buffer]>([
        ['a varint of 11 bytes', random.pick(['GetTask', 'ListTasks']), Buffer.from([0x18, ...Array(11).fill(0xff), 0x01])],
        ['a nested message cut short', 'SendMessage', bytesField(2, Buffer.concat([tag(5, 2), varint(50), Buffer.from('x')]))],
      ]);
      if (random.chance(0.3)) return grpcCase('broken protobuf', specific[0], SERVICE + specific[1], specific[2], a2a('InvalidRequest'));
      return grpcCase('broken protobuf', name, SERVICE + method, bytes, a2a('InvalidRequest'));
    }],
    [10, () => {
      const [name, path, bytes] = random.pick<[string, string, Buffer]>([
        ['an empty request', SERVICE + random.pick(['GetTask', 'CancelTask', 'SubscribeToTask', 'SendMessage', 'GetTaskPushNotificationConfig']), Buffer.alloc(0)],
        ['the id sent as a varint', SERVICE + idMethod(), varintField(2, random.int(0, 1e6))],
        ['a negative historyLength', SERVICE + 'GetTask', message(bytesField(2, anyId()), varintField(3, -random.int(1, 1e6)))],
        ['ListTasks pageSize out of range', SERVICE + 'ListTasks', varintField(4, random.pick([0, -1, 101, 100_000]))],
        ['ListTasks with an unknown status', SERVICE + 'ListTasks', varintField(3, random.pick([99, 12, -3]))],
        ['ListTasks with a token never issued', SERVICE + 'ListTasks', bytesField(5, random.string(random.int(1, 80), 'abcXYZ019-_!'))],
        ['a message from the agent role', SERVICE + 'SendMessage', bytesField(2, message(bytesField(1, 'm'), varintField(4, random.pick([0, 2, 99])), bytesField(5, bytesField(1, 'hi'))))],
        ['a message without parts', SERVICE + 'SendMessage', bytesField(2, message(bytesField(1, 'm'), varintField(4, 1)))],
        ['a part without content', SERVICE + 'SendStreamingMessage', bytesField(2, message(bytesField(1, 'm'), varintField(4, 1), bytesField(5, bytesField(6, 'name.txt'))))],
        ['a message without an id', SERVICE + 'SendMessage', bytesField(2, message(varintField(4, 1), bytesField(5, bytesField(1, 'hi'))))],
        ['an empty referenceTaskId', SERVICE + 'SendMessage', bytesField(2, userMessage('hi', bytesField(8, '')))],
        ['a negative configuration historyLength', SERVICE + 'SendMessage', message(bytesField(2, userMessage('hi')), bytesField(3, varintField(3, -2)))],
        ['a continuation naming another context', SERVICE + 'SendMessage', bytesField(2, userMessage('insta', bytesField(3, random.pick(open(fixtures)).id), bytesField(2, 'other-context')))],
        ['a push config without a url', SERVICE + 'CreateTaskPushNotificationConfig', bytesField(3, anyId())],
      ]);
      return grpcCase('wrong types', name, path, bytes, invalid);
    }],
    [3, () => {
      // Proto3 strings must be UTF-8: read with U+FFFD in place of the bad bytes, an id would name another task.
      const { name, bytes } = invalidUtf8(random);
      const bad = (text: string) => Buffer.concat([Buffer.from(text), bytes]);
      const [where, method, request] = random.pick<[string, string, Buffer]>([
        ['the task id', idMethod(), bytesField(2, bad(anyId().slice(0, 8)))],
        ['a message text', random.pick(['SendMessage', 'SendStreamingMessage']), bytesField(2, userMessage('', bytesField(5, bytesField(1, bad('echo ')))))],
        ['the message’s taskId', 'SendMessage', bytesField(2, userMessage('hi', bytesField(3, bad(anyId()))))],
        ['a metadata key', 'CancelTask', message(bytesField(2, anyId()), bytesField(3, bytesField(1, message(bytesField(1, bad('k')), bytesField(2, bytesField(3, 'v'))))))],
      ]);
      return grpcCase('invalid UTF-8', `${name} in ${where}`, SERVICE + method, request, a2a('InvalidRequest'));
    }],
    [3, () => {
      const levels = random.pick([101, 150, 1_000, 3_000]);
      if (!deep.has(levels)) deep.set(levels, nestedValue(levels));
      const inData = random.chance(0.5);
      const msg = inData
        ? message(bytesField(1, 'm'), varintField(4, 1), bytesField(5, bytesField(4, deep.get(levels)!)))
        : userMessage('hi', bytesField(6, nestedStruct(Math.min(levels, 1_000))));
      // Past protobuf's recursion limit the request cannot even be decoded.
      return grpcCase('deep nesting', `${inData ? 'a data part' : 'metadata'} nested ${levels} levels`, SERVICE + 'SendMessage', bytesField(2, msg), a2a('InvalidRequest'));
    }],
    [8, () => apiCase('unknown task', unknownTask(random))],
    [8, () => apiCase('invalid transition', invalidTransition(random, fixtures))],
    [3, () => apiCase('not offered', unsupported(random, fixtures))],
    [4, () => {
      const path = random.pick([
        () => SERVICE + bogusName(random).replace(/[/\s]/g, '_'),
        () => SERVICE + random.pick(['getTask', 'sendMessage', 'GetTasks', 'Cancel']),
        () => `/${random.pick(['a2a.v1.A2AService', 'lf.a2a.v1.A2AServic', 'grpc.health.v1.Health', 'x'])}/${random.pick(['GetTask', 'Check', 'SendMessage'])}`,
      ])();
      return grpcCase('unknown method', brief(path), path, bytesField(2, 'x'), { code: grpc.status.UNIMPLEMENTED });
    }],
    [3, () => {
      const version = random.chance(0.3) ? '0.3' : badVersion(random);
      return grpcCase('wrong version', `a2a-version ${version}`, SERVICE + 'GetTask', bytesField(2, anyId()), a2a('VersionNotSupported'), { 'a2a-version': version });
    }],
    [3, () => {
      const credentials = random.pick<Record<string, string | undefined>>([{ 'x-api-key': undefined }, { 'x-api-key': 'wrong' }, { 'x-api-key': '' }, { 'x-api-key': undefined, authorization: 'Bearer nope' }]);
      // Credentials are checked before anything is read of the request: even undecodable bytes get UNAUTHENTICATED.
      const [what, method, bytes] = random.pick<[string, string, Buffer]>([
        ['GetTask', 'GetTask', bytesField(2, anyId())],
        ['SubscribeToTask', 'SubscribeToTask', bytesField(2, anyId())],
        ['SendMessage', 'SendMessage', bytesField(2, userMessage('echo hi'))],
        ['undecodable bytes', random.pick(['GetTask', 'SendStreamingMessage']), Buffer.concat([tag(2, 7), Buffer.from('xx')])],
      ]);
      return grpcCase('missing auth', `${what} with ${brief(credentials)}`, SERVICE + method, bytes, a2a('Unauthenticated'), credentials);
    }],
  ];
  const total = makers.reduce((sum, [weight]) => sum + weight, 0);
  const oversized = [4 * 1024 * 1024 + 1, 5 * 1024 * 1024].map((size) =>
    grpcCase('oversized body', `${size} bytes`, SERVICE + 'SendMessage', Buffer.alloc(size, 0x61), { code: grpc.status.RESOURCE_EXHAUSTED }),
  );
  const cases: HostileCase[] = [...h2.cases, ...oversized];
  while (cases.length < count) {
    let roll = random.int(1, total);
    cases.push(makers.find(([weight]) => (roll -= weight) <= 0)![1]());
  }
  return {
    cases,
    close: () => {
      client.close();
      h2.close();
    },
  };
}
