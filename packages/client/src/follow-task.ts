import type { Logger, StreamResponse, Task, Transport } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import type { Clock, Random } from './clock.js';
import type { ResumeOptions } from './resumable-stream.js';
import { resumableStream } from './resumable-stream.js';
import { isTransient } from './transient.js';
import { joinParts } from './view/reduce.js';

/** What {@link followTask} needs. */
export interface FollowOptions {
  readonly tenant?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Gives up (resolves `{ kind: 'timeout' }`) after this many ms (`Infinity`: never). */
  readonly maxMs: number;
  readonly resume?: ResumeOptions | undefined;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger?: Logger | undefined;
  /** Called with the task as the stream has it after each event. */
  readonly onUpdate?: ((task: Task) => void) | undefined;
}

/**
 * How following a task ended: `met` (the stream showed the task meeting the
 * condition), `unavailable` (the agent would not stream this task: the
 * caller polls), `failing` (the stream kept dropping: the caller polls),
 * `ended` (the agent ended the stream before the condition was met, as a
 * server that stops at interrupted states does), or `timeout`. `task` is the
 * task as last seen, if any event came.
 */
export type FollowOutcome =
  | { readonly kind: 'met'; readonly task: Task }
  | { readonly kind: 'unavailable' | 'failing' | 'ended' | 'timeout'; readonly task: Task | undefined; readonly cause?: unknown };

/** The task after one stream response (status and artifacts as the agent sent them; history as the snapshot had it). */
export function applyResponse(task: Task | undefined, response: StreamResponse): Task | undefined {
  if ('task' in response) return response.task;
  if (!task) return undefined;
  if ('statusUpdate' in response) return { ...task, status: response.statusUpdate.status };
  if ('artifactUpdate' in response) {
    const { artifact, append } = response.artifactUpdate;
    const artifacts = [...(task.artifacts ?? [])];
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at === -1) artifacts.push(artifact);
    else artifacts[at] = append ? { ...artifacts[at]!, parts: joinParts(artifacts[at]!.parts, artifact.parts) } : artifact;
    return { ...task, artifacts };
  }
  return task;
}

/** Errors that mean "this agent will not stream this task" rather than a failure of the task. */
function unavailable(error: unknown): boolean {
  return A2AError.is(error) && (error.kind === 'UnsupportedOperation' || error.kind === 'MethodNotFound');
}

const TIMEOUT = Symbol('timeout');

/**
 * Follows task `id` with SubscribeToTask (dropped streams are resumed from
 * the last event) until the task, as the events show it, meets `met`; then
 * closes the subscription. It never polls: when the agent does not stream
 * the task, when the stream keeps dropping, when the agent ends it early or
 * when `maxMs` passes, it says so and the caller decides. Other errors
 * (TaskNotFound, an abort of `signal`) are thrown.
 */
export async function followTask(transport: Transport, id: string, met: (task: Task) => boolean, options: FollowOptions): Promise<FollowOutcome> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const limit = Number.isFinite(options.maxMs)
    ? options.clock.sleep(options.maxMs, stop.signal).then(
        () => stop.abort(TIMEOUT),
        () => undefined,
      )
    : undefined;
  const events = resumableStream(transport, 'SubscribeToTask', { id, ...(options.tenant !== undefined && { tenant: options.tenant }) }, {
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    ...options.resume,
    signal,
  });
  let task: Task | undefined;
  try {
    for await (const event of events) {
      task = applyResponse(task, event.response);
      if (!task) continue;
      options.onUpdate?.(task);
      if (met(task)) return { kind: 'met', task };
    }
    return { kind: 'ended', task };
  } catch (error) {
    if (stop.signal.reason === TIMEOUT) return { kind: 'timeout', task };
    if (options.signal?.aborted) throw options.signal.reason;
    if (unavailable(error)) return { kind: 'unavailable', task, cause: error };
    if (isTransient(error)) return { kind: 'failing', task, cause: error };
    throw error;
  } finally {
    if (!stop.signal.aborted) stop.abort();
    await limit;
    await events.return(undefined);
  }
}
