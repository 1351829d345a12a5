import { A2AError } from '../errors.js';
import { callTraceOf } from '../observability/server-call.js';
import type { RunObserver } from '../observability/run-observer.js';
import { isTerminal, type Task } from '../schema/index.js';
import { VersionConflictError, type TaskRecord } from '../store/task-store.js';
import type { CallContext } from '../calls.js';
import type { AgentRunner } from './agent-run.js';
import { TransitionFailure, type Applied, type TaskEngine } from './task-engine.js';

/**
 * How many times a cancel applies its event again after the engine gave up
 * on version conflicts (each time after its own retries): a run busy on
 * another process moves the task on between every read and commit of it.
 */
const CANCEL_ROUNDS = 8;

/** What {@link cancelTask} uses of its service. */
export interface CancelHost {
  readonly engine: TaskEngine;
  readonly runner: AgentRunner;
  readonly observer: RunObserver;
  /** The ms a run in this process gets to end its task itself once its signal aborted (0: canceled at once). */
  readonly graceMs: number;
  /** The task as the caller may see it (TaskNotFound otherwise). */
  visible(taskId: string, context: CallContext): Promise<TaskRecord>;
  /** The task as the call's answer (projected, with its generation under A2A 1.1). */
  answer(record: TaskRecord, context: CallContext): Task;
}

/**
 * CancelTask of `taskId` for `context`: a canceled task answers as it is; a
 * task otherwise terminal is TaskNotCancelable. A run of it in this process
 * first gets `host.graceMs` to end the task itself (its signal aborts; its
 * own canceled status, with its message, is then the answer); what is still
 * going is canceled by the service, then its run aborts. A task that
 * finished otherwise meanwhile is TaskNotCancelable.
 */
export async function cancelTask(host: CancelHost, taskId: string, context: CallContext): Promise<Task> {
  const record = await host.visible(taskId, context);
  const state = record.task.status.state;
  if (state === 'TASK_STATE_CANCELED') return host.answer(record, context);
  if (isTerminal(state)) {
    throw new A2AError('TaskNotCancelable', `Task ${taskId} is ${state}; only a task that has not finished can be canceled`, { taskId });
  }
  const reason = `Task ${taskId} was canceled`;
  // The run here gets the grace to end its task itself (its own canceled status, with a message); what it left is canceled below.
  if (host.graceMs > 0 && host.runner.isRunning(taskId)) {
    await host.runner.abortAndWait(taskId, reason, host.graceMs);
    const now = await host.visible(taskId, context);
    if (isTerminal(now.task.status.state)) return canceledOrNot(host, now, context, record);
  }
  let applied: Applied;
  try {
    applied = await applyCancel(host, taskId, record.task.contextId);
  } catch (error) {
    if (!(error instanceof TransitionFailure)) throw error;
    return canceledOrNot(host, await host.visible(taskId, context), context);
  }
  host.runner.abort(taskId, reason);
  host.observer.canceled(taskId, record.trace, callTraceOf(context));
  return host.answer(applied.record, context);
}

/** Applies the canceled status to `taskId`, again while other commits keep winning the race to it (see {@link CANCEL_ROUNDS}). */
async function applyCancel(host: CancelHost, taskId: string, contextId: string): Promise<Applied> {
  for (let round = 0; ; round++) {
    try {
      return await host.engine.apply(taskId, { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_CANCELED' } } });
    } catch (error) {
      if (!(error instanceof VersionConflictError) || round >= CANCEL_ROUNDS) throw error;
    }
  }
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
