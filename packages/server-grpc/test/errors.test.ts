import type { CallContext, UnaryMethodName } from '@taskwire/core';
import { A2AError, apiKeyAuth, GRPC_STATUS } from '@taskwire/core';
import { describe, expect, it, vi } from 'vitest';
import { decodeStatusDetails, RPC_CODECS } from '../src/convert.js';
import { connect, rawUnary, referenceService, serve } from './helpers.js';

const user = (text: string, extra: object = {}) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...extra } });

/** The gRPC code and the ErrorInfo of a failed raw call. */
function statusOf(outcome: Awaited<ReturnType<typeof rawUnary>>) {
  expect(outcome.error, 'the call should have failed').toBeDefined();
  const bin = outcome.error!.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined;
  const status = bin ? decodeStatusDetails(bin) : undefined;
  const info = status?.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  return { code: outcome.error!.code, message: outcome.error!.details, status, info };
}

describe('A2A errors on the gRPC wire', () => {
  it('map to the spec status codes with a google.rpc.ErrorInfo in grpc-status-details-bin', async () => {
    const service = referenceService();
    const { url } = await serve(service);
    const done = await connect(url).unary('SendMessage', user('echo x'));
    const taskId = 'task' in done ? done.task.id : '';
    const cases: Array<[UnaryMethodName, unknown, keyof typeof GRPC_STATUS, string]> = [
      ['GetTask', { id: 'nope' }, 'NOT_FOUND', 'TASK_NOT_FOUND'],
      ['CancelTask', { id: taskId }, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
      ['SendMessage', user('again', { taskId }), 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
      ['GetTaskPushNotificationConfig', { taskId, id: 'c' }, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
      ['GetExtendedAgentCard', {}, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    ];
    for (const [method, params, code, reason] of cases) {
      const got = statusOf(await rawUnary(url, method, RPC_CODECS[method].request.encode(params as never)));
      expect([method, got.code, got.info?.reason, got.info?.domain]).toEqual([method, GRPC_STATUS[code], reason, 'a2a-protocol.org']);
      expect(got.status?.code).toBe(got.code);
      expect(got.status?.message).toBe(got.message);
    }
    const notFound = statusOf(await rawUnary(url, 'GetTask', RPC_CODECS.GetTask.request.encode({ id: 'nope' })));
    expect(notFound.info?.metadata).toEqual({ taskId: 'nope' });
  });

  it('invalid requests are INVALID_ARGUMENT naming the bad field, with a BadRequest detail', async () => {
    const { url } = await serve(referenceService());
    const bytes = RPC_CODECS.SendMessage.request.encode({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } });
    const got = statusOf(await rawUnary(url, 'SendMessage', bytes));
    expect(got.code).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(got.message).toContain('message.parts');
    expect(got.status?.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'message.parts', description: expect.any(String) }],
    });
    const list = statusOf(await rawUnary(url, 'ListTasks', RPC_CODECS.ListTasks.request.encode({ pageSize: 101 })));
    expect([list.code, list.message.includes('pageSize')]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, true]);
  });

  it('bytes that are not the request message are INVALID_ARGUMENT, not INTERNAL', async () => {
    const { url } = await serve(referenceService());
    const got = statusOf(await rawUnary(url, 'GetTask', Buffer.from([0x12, 0xff, 0xff, 0xff, 0x0f])));
    expect([got.code, got.info?.reason]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'INVALID_REQUEST']);
  });

  it('a bad resume point in metadata is INVALID_ARGUMENT naming afterSequence', async () => {
    const { url } = await serve(referenceService());
    const client = connect(url, { 'taskwire-after-sequence': 'soon' });
    const task = await client.unary('SendMessage', user('quote'));
    const id = 'task' in task ? task.task.id : '';
    const events = client.stream('SubscribeToTask', { id });
    await expect(events[Symbol.asyncIterator]().next()).rejects.toMatchObject({ kind: 'InvalidParams', message: expect.stringContaining('afterSequence') });
  });

  it('a2a-version other than 1.0 (a bare 1 too) is VersionNotSupported (FAILED_PRECONDITION); none, 1.0 or 1.0.x is served', async () => {
    const { url } = await serve(referenceService());
    const bytes = RPC_CODECS.ListTasks.request.encode({});
    for (const version of ['2.0', '0.3', '1']) {
      const got = statusOf(await rawUnary(url, 'ListTasks', bytes, { 'a2a-version': version }));
      expect([got.code, got.info?.reason]).toEqual([GRPC_STATUS.FAILED_PRECONDITION, 'VERSION_NOT_SUPPORTED']);
    }
    for (const metadata of [{}, { 'a2a-version': '1.0' }, { 'a2a-version': '1.0.3' }] as Record<string, string>[]) {
      expect((await rawUnary(url, 'ListTasks', bytes, metadata)).error).toBeUndefined();
    }
  });

  it('an unexpected failure is INTERNAL without its details, and goes to the logger', async () => {
    const service = referenceService();
    vi.spyOn(service, 'unary').mockRejectedValue(new Error('database password is hunter2'));
    const logger = { warn: vi.fn(), error: vi.fn() };
    const { url } = await serve(service, { logger });
    const error = await connect(url).unary('GetTask', { id: 'x' }).catch((e: unknown) => e);
    expect(A2AError.is(error) && [error.kind, error.message.includes('hunter2')]).toEqual(['Internal', false]);
    expect(logger.error).toHaveBeenCalledWith({ error: expect.any(Error) }, 'gRPC GetTask failed');
  });
});

describe('authentication from metadata', () => {
  it('uses core auth hooks: missing or wrong keys are UNAUTHENTICATED, tasks are scoped per caller', async () => {
    const service = referenceService();
    const { url } = await serve(service, { auth: { authenticate: apiKeyAuth({ 'key-a': 'alice', 'key-b': 'bob' }) } });
    const bytes = RPC_CODECS.ListTasks.request.encode({});
    for (const metadata of [{}, { 'x-api-key': 'wrong' }, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const got = statusOf(await rawUnary(url, 'ListTasks', bytes, metadata));
      expect([got.code, got.info?.reason]).toEqual([GRPC_STATUS.UNAUTHENTICATED, 'UNAUTHENTICATED']);
    }
    const alice = connect(url, { 'x-api-key': 'key-a' });
    const bob = connect(url, { authorization: 'Bearer key-b' });
    const sent = await alice.unary('SendMessage', user('echo mine'));
    const id = 'task' in sent ? sent.task.id : '';
    expect((await alice.unary('GetTask', { id })).id).toBe(id);
    await expect(bob.unary('GetTask', { id })).rejects.toMatchObject({ kind: 'TaskNotFound' });
    await expect(connect(url).unary('ListTasks', {})).rejects.toMatchObject({ kind: 'Unauthenticated' });
  });

  it('passes version and extensions from metadata to the service', async () => {
    const service = referenceService();
    const seen: CallContext[] = [];
    const unary = service.unary.bind(service);
    vi.spyOn(service, 'unary').mockImplementation((method, params, context) => {
      seen.push(context!);
      return unary(method, params, context);
    });
    const { url } = await serve(service);
    await connect(url, { 'a2a-extensions': 'https://e.example/a/v1, https://e.example/b/v1' }).unary('ListTasks', {});
    expect(seen[0]).toMatchObject({ version: '1.0', extensions: ['https://e.example/a/v1', 'https://e.example/b/v1'] });
  });
});

describe('message size limits', () => {
  it('a request over maxMessageBytes is RESOURCE_EXHAUSTED, seen by the client as PayloadTooLarge', async () => {
    const { url } = await serve(referenceService(), { maxMessageBytes: 1024 });
    const client = connect(url);
    await expect(client.unary('SendMessage', user(`echo ${'x'.repeat(2048)}`))).rejects.toMatchObject({ kind: 'PayloadTooLarge' });
    const raw = await rawUnary(url, 'SendMessage', RPC_CODECS.SendMessage.request.encode(user(`echo ${'x'.repeat(2048)}`)));
    expect(raw.error?.code).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(await client.unary('SendMessage', user('echo small'))).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});
