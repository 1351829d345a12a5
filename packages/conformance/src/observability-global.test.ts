import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Agent, TaskStore } from '@taskwire/core';
import { ATTR, createMemoryPushConfigStore, createMemoryTaskStore, inMemoryTransport, LINK_KIND, METRIC_NAMES, TaskService, VersionConflictError } from '@taskwire/core';
import type { Clock } from '@taskwire/core/push';
import { webhookDelivery } from '@taskwire/core/push';
import { startWebhookReceiver } from '@taskwire/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUITE_CARD, userMessage } from './harness.js';
import { OtelKit } from './observability/otel-kit.js';
import { WIRES } from './observability/wires.js';

/** An agent that makes a span of its own (as agent code with OpenTelemetry does), then completes. */
const tracedAgent: Agent = async (ctx) => {
  trace.getTracer('my-agent').startActiveSpan('call the model', (span) => span.end());
  await ctx.complete('done');
};

describe('OpenTelemetry registered through @opentelemetry/api (no telemetry option)', () => {
  let kit: OtelKit;
  beforeEach(() => {
    kit = new OtelKit();
    trace.setGlobalTracerProvider(kit.tracerProvider);
    metrics.setGlobalMeterProvider(kit.meterProvider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(kit.contextManager);
  });
  afterEach(async () => {
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    await kit.shutdown();
  });

  it('is picked up on every wire; an agent\'s own spans nest under its run', async () => {
    const pair = await WIRES[0]!.open({});
    try {
      await pair.client.sendMessage({ message: userMessage('echo hi') });
      await pair.service.idle();
    } finally {
      await pair.close();
    }
    const server = kit.one('lf.a2a.v1.A2AService/SendMessage');
    const run = kit.named('invoke_agent Taskwire reference agent').find((s) => s.kind === SpanKind.INTERNAL)!;
    expect(run.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(await kit.total(METRIC_NAMES.serverDuration, { [ATTR.rpcMethod]: 'SendMessage' })).toBe(1);

    const service = new TaskService({ store: createMemoryTaskStore(), agent: tracedAgent });
    await inMemoryTransport(service).unary('SendMessage', { message: userMessage('go') });
    await service.idle();
    const own = kit.one('call the model');
    const ownRun = kit.named('invoke_agent').find((s) => s.spanContext().spanId === own.parentSpanContext?.spanId);
    expect(ownRun?.kind).toBe(SpanKind.INTERNAL);
  });

  it('records nothing with telemetry: false', async () => {
    const pair = await WIRES[0]!.open(false);
    try {
      await pair.client.sendMessage({ message: userMessage('echo hi') });
      await pair.service.idle();
    } finally {
      await pair.close();
    }
    expect(kit.finished()).toEqual([]);
    expect(await kit.total(METRIC_NAMES.serverDuration)).toBe(0);
  });
});

describe('OpenTelemetry across processes and stores', () => {
  let kit: OtelKit;
  beforeEach(() => {
    kit = new OtelKit();
  });
  afterEach(() => kit.shutdown());

  it('recover() links each task it fails to the request that created it, in the process that ran it', async () => {
    const store = createMemoryTaskStore();
    const origin = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' as const } };
    await store.commit({ task, expectedVersion: 0, owner: '', events: [{ task }], trace: origin });
    const restarted = new TaskService({ store, agent: tracedAgent, telemetry: kit.options });
    expect(await restarted.recover()).toEqual(['t1']);
    const recovered = kit.one('recover_task', { [ATTR.taskId]: 't1' });
    expect(recovered.links).toEqual([
      expect.objectContaining({ context: expect.objectContaining({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }), attributes: { [ATTR.linkKind]: LINK_KIND.taskOrigin } }),
    ]);
    expect(await kit.total(METRIC_NAMES.tasksFinished, { [ATTR.taskState]: 'TASK_STATE_FAILED' })).toBe(1);
  });

  it('logs each run\'s start (debug) and end (info) with the task id and the trace ids', async () => {
    const lines: { level: string; message: string | undefined; fields: Record<string, unknown> }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>, message?: string) => void lines.push({ level, message, fields });
    const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const service = new TaskService({ store: createMemoryTaskStore(), agent: tracedAgent, telemetry: kit.options, logger });
    const result = await inMemoryTransport(service).unary('SendMessage', { message: userMessage('go') });
    await service.idle();
    const taskId = 'task' in result ? result.task.id : '';
    const run = kit.named('invoke_agent').find((s) => s.kind === SpanKind.INTERNAL)!.spanContext();
    const ids = { taskId, traceId: run.traceId, spanId: run.spanId };
    expect(lines).toEqual([
      { level: 'debug', message: 'agent run started', fields: expect.objectContaining(ids) },
      { level: 'info', message: 'agent run ended', fields: expect.objectContaining({ ...ids, state: 'TASK_STATE_COMPLETED' }) },
    ]);
  });

  it('counts version conflicts of store commits', async () => {
    const store = createMemoryTaskStore();
    let raced = false;
    // Another writer commits first, once: the service reads again and retries.
    const racing: TaskStore = new Proxy(store, {
      get(target, key) {
        if (key !== 'commit') return Reflect.get(target, key, target);
        return async (request: Parameters<TaskStore['commit']>[0]) => {
          if (!raced && request.expectedVersion > 0) {
            raced = true;
            throw new VersionConflictError(request.task.id, request.expectedVersion, request.expectedVersion + 1);
          }
          return target.commit(request);
        };
      },
    });
    const service = new TaskService({ store: racing, agent: tracedAgent, telemetry: kit.options });
    // Stored at once, so the agent's completion is a second commit (an update, which can lose a race).
    await inMemoryTransport(service).unary('SendMessage', { message: userMessage('go'), configuration: { returnImmediately: true } });
    await service.idle();
    expect(await kit.total(METRIC_NAMES.storeVersionConflicts)).toBe(1);
    expect(await kit.total(METRIC_NAMES.storeCommitDuration, { [ATTR.storeOutcome]: 'conflict' })).toBe(1);
  });
});

describe('OpenTelemetry of push delivery', () => {
  let kit: OtelKit;
  beforeEach(() => {
    kit = new OtelKit();
  });
  afterEach(() => kit.shutdown());

  it('counts attempts by outcome, failures and dead letters', async () => {
    // The first notification (the task) is refused twice and dead-lettered; every later one is acknowledged.
    const receiver = await startWebhookReceiver((_request, index) => (index < 2 ? 500 : 200));
    const instant: Clock = { now: () => 0, sleep: async () => undefined };
    const delivery = webhookDelivery({ allow: ['127.0.0.1'], clock: instant, retry: { maxAttempts: 2 }, telemetry: kit.options });
    const card = { ...SUITE_CARD, capabilities: { ...SUITE_CARD.capabilities, pushNotifications: true } };
    const service = new TaskService({ store: createMemoryTaskStore(), agent: tracedAgent, card, push: { store: createMemoryPushConfigStore(), delivery } });
    try {
      const config = { url: `${receiver.url}/hook` };
      await inMemoryTransport(service).unary('SendMessage', { message: userMessage('go'), configuration: { taskPushNotificationConfig: config, returnImmediately: true } });
      await service.idle();
      await delivery.idle();
      const acknowledged = receiver.accepted().length;
      expect(acknowledged).toBeGreaterThan(0);
      expect(await kit.total(METRIC_NAMES.pushAttempts, { [ATTR.pushOutcome]: 'failed' })).toBe(2);
      expect(await kit.total(METRIC_NAMES.pushAttempts, { [ATTR.pushOutcome]: 'acknowledged' })).toBe(acknowledged);
      expect(await kit.total(METRIC_NAMES.pushFailures)).toBe(2);
      expect(await kit.total(METRIC_NAMES.pushDeadLetters)).toBe(1);
    } finally {
      await service.close();
      await receiver.close();
    }
  });
});
