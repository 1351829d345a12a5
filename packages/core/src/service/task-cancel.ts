import { A2AError } from '../errors.js';
import { callTraceOf } from '../observability/server-call.js';
import type { RunObserver } from '../observability/run-observer.js';
import { isTerminal, type Task } from '../schema/index.js';
import type { TaskRecord } from '../store/task-store.js';
import type { CallContext } from '../calls.js';
import type { AgentRunner } from './agent-run.js';
import { TransitionFailure, type TaskEngine } from './task-engine.js';
import { stateOf } from './task-stream.js';

/**
 * How long past its grace a cancel waits for the process running the task
 * to answer an abort request (its agent's own ending, or its cancel once
 * the grace passed) before it cancels the task itself.
 */
export const ABORT_REQUEST_MARGIN_MS = 2_000;

/** The longest a timer waits (a longer wait is cut to this). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What {@link cancelTask} uses of its service. */
export interface CancelHost {
  readonly engine: TaskEngine;
  readonly runner: AgentRunner;
  readonly observer: RunObserver;
  /** The ms a run gets to end its task itself once its signal aborted (0: canceled at once). */
  readonly graceMs: number;
  /** Asks the live process running the task elsewhere to abort its run with the grace (the coordinator's `requestAbort`); false when none was asked. */
  readonly requestAbort?: ((taskId: string, graceMs: number) => Promise<boolean>) | undefined;
  /** The task as the caller may see it (TaskNotFound otherwise). */
  visible(taskId: string, context: CallContext): Promise<TaskRecord>;
  /** The task as the call's answer (projected, with its generation under A2A 1.1). */
  answer(record: TaskRecord, context: CallContext): Task;
}

/**
 * CancelTask of `taskId` for `context`: a canceled task answers as it is; a
 * task otherwise terminal is TaskNotCancelable. With `host.graceMs` > 0 the
 * run of the task first gets that long to end the task itself (its signal
 * aborts; its own canceled status, with its message, is then the answer):
 * a run in this process directly, a run in another live process through an
 * abort request (see `TaskCoordinator.requestAbort`), whose outcome is
 * awaited on the task's commits for the grace and
 * {@link ABORT_REQUEST_MARGIN_MS} more. What is still going is canceled by
 * the service, then its run aborts. A task that finished otherwise
 * meanwhile is TaskNotCancelable.
 */
export async function cancelTask(host: CancelHost, taskId: string, context: CallContext): Promise<Task> {
  const record = await host.visible(taskId, context);
  const state = record.task.status.state;
  if (state === 'TASK_STATE_CANCELED') return host.answer(record, context);
  if (isTerminal(state)) {
    throw new A2AError('TaskNotCancelable', `Task ${taskId} is ${state}; only a task that has not finished can be canceled`, { taskId });
  }
  if (host.graceMs > 0) {
    // The run gets the grace to end its task itself (its own canceled status, with a message); what it left is canceled below.
    const ended = host.runner.isRunning(taskId) ? await abortHere(host, taskId, context) : await abortElsewhere(host, record, context);
    if (ended) return canceledOrNot(host, ended, context, record);
  }
  try {
    const applied = await commitCancel(host.engine, host.runner, taskId, record.task.contextId);
    host.observer.canceled(taskId, record.trace, callTraceOf(context));
    return host.answer(applied.record, context);
  } catch (error) {
    if (!(error instanceof TransitionFailure)) throw error;
    return canceledOrNot(host, await host.visible(taskId, context), context);
  }
}

/**
 * Another process's cancel asked for the run of `taskId` here to be
 * aborted with `graceMs` (see `CoordinatorHost.abortRun`): the run gets the
 * grace to end its task itself, then what it left unsettled is canceled (a
 * refused commit means the task ended meanwhile). Nothing happens when no
 * run of the task is in progress here.
 */
export async function cancelRunForPeer(engine: TaskEngine, runner: AgentRunner, taskId: string, graceMs: number): Promise<void> {
  if (!runner.isRunning(taskId)) return;
  await runner.abortAndWait(taskId, canceledReason(taskId), graceMs);
  const now = await engine.get(taskId);
  if (now === undefined || isTerminal(now.task.status.state)) return;
  try {
    await commitCancel(engine, runner, taskId, now.task.contextId);
  } catch (error) {
    if (!(error instanceof TransitionFailure)) throw error;
  }
}

/** The abort reason of a run whose task is being canceled. */
const canceledReason = (taskId: string) => `Task ${taskId} was canceled`;

/** Commits the cancel of `taskId` (a TransitionFailure when it is terminal already), then aborts its run here. */
async function commitCancel(engine: TaskEngine, runner: AgentRunner, taskId: string, contextId: string) {
  const applied = await engine.apply(taskId, { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_CANCELED' } } });
  runner.abort(taskId, canceledReason(taskId));
  return applied;
}

/** Aborts the run here and gives it the grace: the task once its run ended it, undefined when it is still unsettled. */
async function abortHere(host: CancelHost, taskId: string, context: CallContext): Promise<TaskRecord | undefined> {
  await host.runner.abortAndWait(taskId, canceledReason(taskId), host.graceMs);
  const now = await host.visible(taskId, context);
  return isTerminal(now.task.status.state) ? now : undefined;
}

/**
 * Asks the process running the task (when a live one does) to abort it
 * with the grace, and waits on the task's commits (the event hub, woken by
 * the other process's commits) until the task is terminal or the grace and
 * {@link ABORT_REQUEST_MARGIN_MS} have passed: the task once terminal,
 * undefined otherwise (nobody was asked, or nobody answered in time).
 */
async function abortElsewhere(host: CancelHost, record: TaskRecord, context: CallContext): Promise<TaskRecord | undefined> {
  const taskId = record.task.id;
  if (host.requestAbort === undefined || !Number.isFinite(host.graceMs)) return undefined;
  const hub = host.engine.hub;
  // Subscribed before asking: a commit the answer makes is either read from the store or delivered here.
  const subscription = hub.subscribe(taskId, record.lastSequence);
  try {
    // A request that could not be sent is one nobody answers: the cancel is then committed here, as without a grace.
    if (!(await host.requestAbort(taskId, host.graceMs).catch(() => false))) return undefined;
    const deadline = AbortSignal.timeout(Math.min(host.graceMs + ABORT_REQUEST_MARGIN_MS, MAX_TIMER_MS));
    for (;;) {
      // A failed read ends the wait: the cancel is then committed here.
      const stored = await subscription.next(deadline).catch(() => undefined);
      if (stored === undefined) return undefined;
      const state = stateOf(stored.event);
      if (state !== undefined && isTerminal(state)) break;
    }
  } finally {
    hub.unsubscribe(subscription);
  }
  const now = await host.visible(taskId, context);
  return isTerminal(now.task.status.state) ? now : undefined;
}

/** A cancel's answer to `context` once its task is terminal: the task when canceled (observed as this call's cancel when `was` is given), else TaskNotCancelable. */
function canceledOrNot(host: CancelHost, now: TaskRecord, context: CallContext, was?: TaskRecord): Task {
  const taskId = now.task.id;
  if (now.task.status.state !== 'TASK_STATE_CANCELED') {
    throw new A2AError('TaskNotCancelable', `Task ${taskId} finished (${now.task.status.state}) before it could be canceled`, { taskId });
  }
  if (was) host.observer.canceled(taskId, was.trace, callTraceOf(context));
  return host.answer(now, context);
}
