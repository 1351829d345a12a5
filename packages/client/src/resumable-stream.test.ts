import type { StreamEvent, Transport } from '@taskwire/core';
import { A2AError, stateOf } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from './client.js';
import { createSteppedClock } from './clock.js';
import { resumableStream } from './resumable-stream.js';
import { untilSettled } from './until-settled.js';
import { collect, referenceService, serviceTransport } from '../test/support.js';
import { viewOf } from './view/reduce.js';

const service = referenceService();
afterEach(() => service.close());

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
const output = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1} of ${n}\n`).join('');

/** Runs a stream to its end while waking every resumption sleep of the stepped clock. */
async function drain(clock: ReturnType<typeof createSteppedClock>, events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const reading = collect(events);
  let ended = false;
  void reading.finally(() => (ended = true)).catch(() => {});
  while (!ended) {
    await Promise.race([clock.whenSleeping(1), reading.catch(() => {})]);
    if (clock.pending > 0) await clock.runNext();
  }
  return reading;
}

function expectGapless(events: readonly StreamEvent[]): void {
  const sequences = events.map((e) => e.sequence);
  for (let i = 1; i < sequences.length; i++) expect(sequences[i], `event ${i} of ${sequences.join(',')}`).toBe(sequences[i - 1]! + 1);
}

describe('resumable streams', () => {
  it.each(['error', 'end'] as const)('a stream cut mid-way (as %s) is resumed with no lost or repeated event', async (cutAs) => {
    const clock = createSteppedClock();
    // Cut the first stream after 4 events and the first resumption after 3 more.
    const transport = serviceTransport(service, { cutStreams: [4, 3], cutAs });
    const client = new A2AClient(transport, { clock, random: () => 0.5 });
    const events = await drain(clock, client.sendStreamingMessage(message('slow 6 1')));

    expect(transport.calls.map((c) => c.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'SubscribeToTask']);
    const resumes = transport.calls.slice(1).map((c) => (c.params as { afterSequence?: number }).afterSequence);
    expect(resumes).toEqual([events[3]!.sequence, events[6]!.sequence]);
    expect(clock.sleeps).toHaveLength(2);
    expectGapless(events);
    // The same events as an uncut subscriber that replays the task's whole log.
    const first = events[0]!;
    const taskId = 'task' in first.response ? first.response.task.id : '';
    const replay = await collect(new A2AClient(serviceTransport(service)).subscribeToTask({ id: taskId, afterSequence: first.sequence }));
    expect(events.slice(1)).toEqual(replay);
    const view = viewOf(events);
    expect(view.state).toBe('TASK_STATE_COMPLETED');
    expect(view.artifacts.map((a) => a.artifact.parts)).toEqual([[{ text: output(6) }]]);
  });

  it('skips events a resumed stream repeats, when the server replays from earlier', async () => {
    const inner = serviceTransport(service, { cutStreams: [3] });
    // A server that ignores afterSequence and replays the whole log.
    const forgetful: Transport = {
      unary: (m, p, o) => inner.unary(m, p, o),
      stream: (m, p, o) => inner.stream(m, m === 'SubscribeToTask' ? { ...(p as object), afterSequence: 0 } as never : p, o),
    };
    const clock = createSteppedClock();
    const events = await drain(clock, resumableStream(forgetful, 'SendStreamingMessage', message('slow 4 1'), { clock }));
    expectGapless(events);
    expect(viewOf(events).artifacts[0]!.artifact.parts).toEqual([{ text: output(4) }]);
  });

  it('re-subscribes without afterSequence when the stream does not number its events', async () => {
    const inner = serviceTransport(service, { cutStreams: [3] });
    const unnumbered: Transport = {
      unary: (m, p, o) => inner.unary(m, p, o),
      async *stream(m, p, o) {
        for await (const event of inner.stream(m, p, o)) yield { ...event, sequence: 0 };
      },
    };
    const clock = createSteppedClock();
    const events = await drain(clock, resumableStream(unnumbered, 'SendStreamingMessage', message('slow 4 1'), { clock }));
    expect((inner.calls[1]!.params as { afterSequence?: number }).afterSequence).toBeUndefined();
    // The re-subscription starts with the whole task, so the view is complete.
    expect(viewOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(viewOf(events).artifacts[0]!.artifact.parts).toEqual([{ text: output(4) }]);
  });

  it('reads the final task when the task ended and its events cannot be replayed', async () => {
    const inner = serviceTransport(service, { cutStreams: [2] });
    const refusing: Transport = {
      unary: (m, p, o) => inner.unary(m, p, o),
      async *stream(m, p, o) {
        if (m === 'SubscribeToTask') {
          await service.idle();
          throw new A2AError('UnsupportedOperation', 'the task is finished');
        }
        yield* inner.stream(m, p, o);
      },
    };
    const clock = createSteppedClock();
    const events = await drain(clock, resumableStream(refusing, 'SendStreamingMessage', message('slow 3 1'), { clock }));
    const last = events.at(-1)!.response;
    expect('task' in last && last.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(inner.calls.at(-1)!.method).toBe('GetTask');
  });

  it('gives up after `attempts` drops in a row, saying what to do', async () => {
    const inner = serviceTransport(service, { cutStreams: [1, 0, 0, 0] });
    const clock = createSteppedClock();
    const error = await drain(clock, resumableStream(inner, 'SendStreamingMessage', message('slow 3 50'), { clock, attempts: 2 })).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/dropped 3 times in a row.*SubscribeToTask \(or waitForTask\)/);
    expect(inner.calls.map((c) => c.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'SubscribeToTask']);
  });

  it("waits out a server's Retry-After within the backoff's maxTotalMs, and gives up at once, saying what to do, past it", async () => {
    const hour = 3_600_000;
    const patient = serviceTransport(service, { cutStreams: [1], cutRetryAfterMs: hour });
    const clock = createSteppedClock();
    const events = await drain(clock, resumableStream(patient, 'SendStreamingMessage', message('slow 3 1'), { clock, random: () => 0, backoff: { maxTotalMs: Infinity } }));
    expect(clock.sleeps).toEqual([hour]);
    expect(viewOf(events).state).toBe('TASK_STATE_COMPLETED');

    // The default backoff allows 30 s of waiting: an hour is not waited for (it was cut to about 1 ms by the timer before).
    const hasty = serviceTransport(service, { cutStreams: [1], cutRetryAfterMs: hour });
    const later = createSteppedClock();
    const error = await drain(later, resumableStream(hasty, 'SendStreamingMessage', message('slow 3 1'), { clock: later })).catch((e: unknown) => e);
    expect(later.sleeps).toEqual([]);
    expect(error).toMatchObject({ transient: true, retryAfterMs: hour });
    expect((error as Error).message).toMatch(/waiting 3600000 ms .* maxTotalMs of 30000 ms; call SubscribeToTask \(or waitForTask\)/);
    expect(hasty.calls.map((c) => c.method)).toEqual(['SendStreamingMessage']);
  });

  it('does not resume a stream that failed with a protocol error, or before naming its task', async () => {
    const clock = createSteppedClock();
    const client = new A2AClient(serviceTransport(service), { clock });
    const error = await collect(client.subscribeToTask({ id: 'missing' })).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('TaskNotFound');
    const cutAtOnce = serviceTransport(service, { cutStreams: [0] });
    await expect(collect(new A2AClient(cutAtOnce, { clock }).sendStreamingMessage(message('echo x')))).rejects.toThrow('injected');
    expect(cutAtOnce.calls).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('can be turned off per client or per call', async () => {
    const transport = serviceTransport(service, { cutStreams: [2, 2] });
    const client = new A2AClient(transport, { resume: false });
    await expect(collect(client.sendStreamingMessage(message('slow 3 1')))).rejects.toThrow('injected');
    const perCall = new A2AClient(transport);
    await expect(collect(perCall.sendStreamingMessage(message('slow 3 1'), { resume: false }))).rejects.toThrow('injected');
    expect(transport.calls.map((c) => c.method)).toEqual(['SendStreamingMessage', 'SendStreamingMessage']);
  });

  it('stops a resumed SendStreamingMessage at input-required: the turn is over though its SubscribeToTask would go on', async () => {
    const transport = serviceTransport(service, { cutStreams: [1] });
    const clock = createSteppedClock();
    const events = await drain(clock, resumableStream(transport, 'SendStreamingMessage', message('a quote please'), { clock }));
    expect(events.map((e) => stateOf(e.response))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_INPUT_REQUIRED']);
    expect(transport.calls.map((c) => c.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    const taskId = 'task' in events[0]!.response ? events[0]!.response.task.id : '';
    expect(service.engine.hub.count(taskId)).toBe(0);
  });

  it('resumes a SubscribeToTask that drops while its task waits for input, and follows it to the end', async () => {
    const asked = await service.unary('SendMessage', message('a quote please'));
    if (!('task' in asked)) throw new Error('expected a task');
    const id = asked.task.id;
    // The cut comes with the first event after the snapshot: the continuation's.
    const transport = serviceTransport(service, { cutStreams: [1] });
    const clock = createSteppedClock();
    const events = resumableStream(transport, 'SubscribeToTask', { id }, { clock })[Symbol.asyncIterator]();
    const first = (await events.next()).value as StreamEvent;
    expect(stateOf(first.response)).toBe('TASK_STATE_INPUT_REQUIRED');
    await service.unary('SendMessage', { message: { ...message('insta').message, taskId: id } });
    const rest = await drain(clock, { [Symbol.asyncIterator]: () => events });
    expect(transport.calls.map((c) => c.method)).toEqual(['SubscribeToTask', 'SubscribeToTask']);
    expect((transport.calls[1]!.params as { afterSequence?: number }).afterSequence).toBe(first.sequence);
    expectGapless([first, ...rest]);
    expect(stateOf(rest.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
    expect(viewOf(rest).artifacts.map((a) => a.artifact.artifactId)).toEqual(['quote']);
  });

  it('untilSettled ends a subscription where the turn ends, and closes it', async () => {
    const asked = await service.unary('SendMessage', message('a quote please'));
    if (!('task' in asked)) throw new Error('expected a task');
    const client = new A2AClient(serviceTransport(service));
    const events = await collect(untilSettled(client.subscribeToTask({ id: asked.task.id })));
    expect(events.map((e) => stateOf(e.response))).toEqual(['TASK_STATE_INPUT_REQUIRED']);
    expect(service.engine.hub.count(asked.task.id)).toBe(0);
  });
});
