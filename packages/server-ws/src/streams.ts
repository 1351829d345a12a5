import type { ParamsOf, ServerCall, StreamEvent, StreamMethodName, StreamResponse, TaskService } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import type { TrackedEnvelope } from '@trpc/server';
import { tracked } from '@trpc/server';
import { splitTrace, startWsCall } from './call-telemetry.js';
import { splitExtensions, type ExtensionsEvent } from './call-extensions.js';
import { splitIdempotencyKey } from './call-idempotency.js';
import type { A2ARouterContext } from './context.js';
import type { EventPosition } from './event-id.js';
import { formatEventId, parseEventId } from './event-id.js';

/**
 * The input of a stream procedure: the operation's params, plus the
 * `lastEventId` a tRPC client adds when it resubscribes after a lost
 * connection.
 */
export type StreamInput<M extends StreamMethodName> = ParamsOf<M> & { lastEventId?: string | undefined };

/** The events of one stream call, as the tRPC adapter reads them. */
export type TrackedEvents = AsyncIterableIterator<TrackedEnvelope<StreamResponse>>;

/** The task a stream response belongs to, when it says. */
function taskIdOf(response: StreamResponse): string | undefined {
  if ('task' in response) return response.task.id;
  if ('statusUpdate' in response) return response.statusUpdate.taskId;
  if ('artifactUpdate' in response) return response.artifactUpdate.taskId;
  return response.message.taskId;
}

/**
 * What a stream call opens: the operation as asked or, on a resume, the
 * rest of the task after the last event seen. A resume id names its task:
 * a SubscribeToTask of one task cannot resume from another task's event
 * (its sequence numbers mean nothing there), so that is InvalidParams.
 */
function target(method: StreamMethodName, params: Record<string, unknown>, resume: EventPosition | undefined) {
  const named = method === 'SubscribeToTask' && typeof params.id === 'string' ? params.id : undefined;
  if (!resume) return { method, params, taskId: named };
  if (named !== undefined && named !== resume.taskId) {
    throw new A2AError(
      'InvalidParams',
      `Invalid parameters: lastEventId: the event ${resume.sequence} it names belongs to another task than ${named.slice(0, 80)}; send the id of the last event received on this task's stream, or none`,
    );
  }
  const taskId = named ?? resume.taskId;
  const tenant = params.tenant;
  return { method: 'SubscribeToTask' as const, params: { id: taskId, afterSequence: resume.sequence, ...(tenant !== undefined && { tenant }) }, taskId };
}

/**
 * The service's events as tracked tRPC events, skipping those at or before
 * `after`, each in the extensions envelope when `extensions` is given. `release` runs once, however the stream ends: done, failed, or
 * stopped by `return()` (even before the first `next()`, which an async
 * generator could not promise).
 */
function relay(events: AsyncIterable<StreamEvent>, taskId: string | undefined, after: number, release: () => void, extensions?: readonly string[]): TrackedEvents {
  const inner = events[Symbol.asyncIterator]();
  let released = false;
  const finish = () => {
    if (!released) {
      released = true;
      release();
    }
  };
  const done = { done: true as const, value: undefined };
  const iterator: TrackedEvents = {
    [Symbol.asyncIterator]: () => iterator,
    async next() {
      try {
        for (;;) {
          const item = await inner.next();
          if (item.done) break;
          if (item.value.sequence <= after) continue;
          taskId ??= taskIdOf(item.value.response);
          const { response } = item.value;
          const data = extensions ? ({ response, extensions } satisfies ExtensionsEvent<StreamResponse> as unknown as StreamResponse) : response;
          return { done: false, value: tracked(formatEventId(item.value.sequence, taskId ?? ''), data) };
        }
      } catch (error) {
        finish();
        throw error;
      }
      finish();
      return done;
    },
    async return() {
      try {
        await inner.return?.();
      } finally {
        finish();
      }
      return done;
    },
  };
  return iterator;
}

/**
 * Opens one stream call of the router (a tRPC subscription): the service
 * validates it and runs every protocol check before this resolves, so a
 * refused call fails before its first event; the events then go out as
 * `tracked("<sequence>:<taskId>", response)`. With a `lastEventId` (a tRPC
 * client resubscribing) it resumes right after that event as a
 * SubscribeToTask with `afterSequence`, also for a SendStreamingMessage,
 * whose message is not sent again; no event at or before the resume point
 * is sent twice. A SendStreamingMessage (resumed or not) ends when the
 * task reaches a terminal or interrupted state, a SubscribeToTask when the
 * task is terminal; either ends when the client stops it or the connection
 * closes (`signal`); none of these cancels the task. It holds one of the
 * connection's stream slots until it ends.
 */
export async function openStream<M extends StreamMethodName>(
  service: TaskService,
  method: M,
  input: StreamInput<M> | undefined,
  ctx: A2ARouterContext,
  signal: AbortSignal | undefined,
): Promise<TrackedEvents> {
  const { params: traced, carrier } = splitTrace(input ?? {});
  const keyed = splitIdempotencyKey(traced, ctx.call);
  const split = splitExtensions(keyed.params, keyed.call);
  const { lastEventId, ...params } = split.params as StreamInput<M>;
  const resume = lastEventId === undefined ? undefined : parseEventId(lastEventId);
  const opened = target(method, params, resume);
  ctx.slots?.acquire();
  let observed: ServerCall | undefined;
  try {
    const call = { ...split.call, signal: signal ?? ctx.call.signal };
    observed = startWsCall(service, opened.method, opened.params, carrier, call);
    // A resumed SendStreamingMessage still ends where the message's stream ends (the turn), not at the task's end.
    const events = await (method === 'SendStreamingMessage' && opened.method === 'SubscribeToTask'
      ? service.resumeStreamingMessage(opened.params, call)
      : service.stream(opened.method, opened.params, call));
    // The activated set is final once the stream opens: every event carries it in the envelope.
    const extensions = split.activation?.seal();
    return relay(observed?.follow(events) ?? events, opened.taskId, resume?.sequence ?? -1, () => ctx.slots?.release(), extensions);
  } catch (error) {
    ctx.slots?.release();
    observed?.fail(error);
    throw error;
  }
}
