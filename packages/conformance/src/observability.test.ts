import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { StreamEvent, Task } from '@taskwire/core';
import { ATTR, METRIC_NAMES, RPC_SYSTEM } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { userMessage } from './harness.js';
import { OtelKit } from './observability/otel-kit.js';
import type { TracedPair } from './observability/wires.js';
import { WIRES } from './observability/wires.js';

const AGENT = 'invoke_agent Taskwire reference agent';
const span = (method: string) => `lf.a2a.v1.A2AService/${method}`;

/** The wire's own status code of an answer, as its server span reports it. */
function statusAttributes(system: string, outcome: { http: number; grpc: number; jsonRpc?: number }): Record<string, number> {
  if (system === RPC_SYSTEM.grpc) return { [ATTR.grpcStatusCode]: outcome.grpc };
  if (system === RPC_SYSTEM.httpJson) return { [ATTR.httpStatusCode]: outcome.http };
  if (system === RPC_SYSTEM.jsonRpc && outcome.jsonRpc !== undefined) return { [ATTR.jsonRpcErrorCode]: outcome.jsonRpc };
  return {};
}

const linkTo = (target: ReadableSpan, kind: string) =>
  expect.objectContaining({ context: expect.objectContaining({ spanId: target.spanContext().spanId }), attributes: { [ATTR.linkKind]: kind } });

const byStart = (spans: ReadableSpan[]) => [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function taskOf(result: unknown): Task {
  if (typeof result !== 'object' || result === null || !('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return (result as { task: Task }).task;
}

describe.each(WIRES)('OpenTelemetry over $name', (wire) => {
  let kit: OtelKit;
  let pair: TracedPair;
  const runs = () => kit.named(AGENT).filter((s) => s.kind === SpanKind.INTERNAL);

  beforeEach(async () => {
    kit = new OtelKit();
    pair = await wire.open(kit.options);
  });
  afterEach(async () => {
    await pair.close();
    await kit.shutdown();
  });

  it('send: one trace from the client span through the server span into the agent run, with A2A attributes and metrics', async () => {
    const message = userMessage('echo hi');
    const task = taskOf(await pair.client.sendMessage({ message }));
    await pair.service.idle();

    const client = kit.named(AGENT, { [ATTR.rpcMethod]: 'SendMessage' }).find((s) => s.kind === SpanKind.CLIENT)!;
    expect(client.attributes).toMatchObject({ [ATTR.operationName]: 'invoke_agent', [ATTR.agentName]: 'Taskwire reference agent', [ATTR.rpcSystem]: wire.system });
    const server = kit.one(span('SendMessage'));
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(server.attributes).toMatchObject({
      [ATTR.rpcSystem]: wire.system,
      [ATTR.rpcService]: 'lf.a2a.v1.A2AService',
      [ATTR.rpcMethod]: 'SendMessage',
      [ATTR.a2aOperation]: 'SendMessage',
      [ATTR.taskId]: task.id,
      [ATTR.contextId]: task.contextId,
      [ATTR.conversationId]: task.contextId,
      [ATTR.messageId]: message.messageId,
      [ATTR.taskState]: 'TASK_STATE_COMPLETED',
      ...statusAttributes(wire.system, { http: 200, grpc: 0 }),
    });
    const [run] = runs();
    expect(run!.spanContext().traceId).toBe(client.spanContext().traceId);
    expect(run!.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(run!.links).toEqual([linkTo(server, 'started_by')]);
    expect(run!.attributes).toMatchObject({ [ATTR.taskId]: task.id, [ATTR.conversationId]: task.contextId, [ATTR.taskState]: 'TASK_STATE_COMPLETED', [ATTR.runContinuation]: false });

    expect(await kit.total(METRIC_NAMES.serverDuration, { [ATTR.rpcSystem]: wire.system, [ATTR.rpcMethod]: 'SendMessage' })).toBe(1);
    expect(await kit.total(METRIC_NAMES.clientDuration, { [ATTR.rpcMethod]: 'SendMessage' })).toBe(1);
    expect(await kit.total(METRIC_NAMES.tasksFinished, { [ATTR.taskState]: 'TASK_STATE_COMPLETED' })).toBe(1);
    expect(await kit.total(METRIC_NAMES.runDuration, { [ATTR.taskState]: 'TASK_STATE_COMPLETED' })).toBe(1);
    expect(await kit.total(METRIC_NAMES.storeCommitDuration, { [ATTR.storeOutcome]: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('stream: the server span lasts the whole stream and counts its events; open streams go back to zero', async () => {
    const events = await collect(pair.client.sendStreamingMessage({ message: userMessage('slow 3 0') }));
    await pair.service.idle();
    const server = kit.one(span('SendStreamingMessage'));
    expect(server.attributes).toMatchObject({ [ATTR.streamEvents]: events.length, [ATTR.streamEnd]: 'completed', [ATTR.taskState]: 'TASK_STATE_COMPLETED' });
    expect(server.events.filter((e) => e.name === 'a2a.stream.status').at(-1)?.attributes).toMatchObject({ [ATTR.taskState]: 'TASK_STATE_COMPLETED' });
    const client = kit.named(AGENT, { [ATTR.rpcMethod]: 'SendStreamingMessage' })[0]!;
    expect(client.attributes[ATTR.streamEvents]).toBe(events.length);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(runs()[0]!.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const open = await kit.points(METRIC_NAMES.openStreams, { [ATTR.rpcMethod]: 'SendStreamingMessage' });
    expect(open.map((p) => p.value)).toEqual([0]);
  });

  it('continue: the run a second message starts links back to the request that created the task', async () => {
    const task = taskOf(await pair.client.sendMessage({ message: userMessage('a quote for a sunset') }));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await pair.client.sendMessage({ message: userMessage('insta', { taskId: task.id }) });
    await pair.service.idle();
    const [created, continued] = byStart(kit.named(span('SendMessage')));
    expect(continued!.links).toEqual([linkTo(created!, 'task_origin')]);
    const second = runs().find((s) => s.attributes[ATTR.runContinuation] === true)!;
    expect(second.parentSpanContext?.spanId).toBe(continued!.spanContext().spanId);
    expect(second.links).toEqual(expect.arrayContaining([linkTo(continued!, 'started_by'), linkTo(created!, 'task_origin')]));
    expect(second.attributes[ATTR.taskState]).toBe('TASK_STATE_COMPLETED');
  });

  it('cancel: the CancelTask span links to the task origin; the run records the cancel', async () => {
    const task = taskOf(await pair.client.sendMessage({ message: userMessage('slow 100 20'), configuration: { returnImmediately: true } }));
    await pair.client.cancelTask({ id: task.id });
    await pair.service.idle();
    const origin = kit.one(span('SendMessage'));
    const cancel = kit.one(span('CancelTask'));
    expect(cancel.attributes).toMatchObject({ [ATTR.taskId]: task.id, [ATTR.taskState]: 'TASK_STATE_CANCELED' });
    expect(cancel.links).toEqual([linkTo(origin, 'task_origin')]);
    const [run] = runs();
    expect(run!.events.map((e) => e.name)).toContain('a2a.task.canceled');
    expect(run!.links).toEqual(expect.arrayContaining([linkTo(cancel, 'canceled_by')]));
    expect(run!.attributes[ATTR.taskState]).toBe('TASK_STATE_CANCELED');
    expect(await kit.total(METRIC_NAMES.tasksFinished, { [ATTR.taskState]: 'TASK_STATE_CANCELED' })).toBe(1);
  });

  it('a failed run is an error span; a refused call carries the wire error code', async () => {
    await pair.client.sendMessage({ message: userMessage('fail') });
    await pair.service.idle();
    const [run] = runs();
    expect(run!.status.code).toBe(SpanStatusCode.ERROR);
    expect(run!.attributes[ATTR.taskState]).toBe('TASK_STATE_FAILED');
    expect(await kit.total(METRIC_NAMES.tasksFinished, { [ATTR.taskState]: 'TASK_STATE_FAILED' })).toBe(1);
    expect(await kit.total(METRIC_NAMES.runDuration, { [ATTR.taskState]: 'TASK_STATE_FAILED' })).toBe(1);

    await expect(pair.client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ reason: 'TASK_NOT_FOUND' });
    const server = kit.one(span('GetTask'));
    expect(server.attributes).toMatchObject({ [ATTR.errorType]: 'TASK_NOT_FOUND', [ATTR.taskId]: 'no-such-task', ...statusAttributes(wire.system, { http: 404, grpc: 5, jsonRpc: -32001 }) });
    // A client's mistake is not the server's fault: the server span keeps an unset status.
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    const client = kit.named(AGENT, { [ATTR.rpcMethod]: 'GetTask' })[0]!;
    expect(client.status.code).toBe(SpanStatusCode.ERROR);
    expect(await kit.total(METRIC_NAMES.serverDuration, { [ATTR.rpcMethod]: 'GetTask', [ATTR.errorType]: 'TASK_NOT_FOUND' })).toBe(1);
  });
});
