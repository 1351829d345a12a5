import { isSettled, isTerminal } from '../schema/index.js';
import type { AgentRunner, Logger } from './agent-run.js';
import type { TaskCoordinator } from './coordination.js';
import { LeaseLostError } from './coordination.js';
import type { TaskEngine } from './task-engine.js';
import { TaskLeases } from './task-leases.js';
import { cancelRunForPeer } from './task-cancel.js';

/** The status message of a task failed because the process running its agent stopped (another process settled it). */
export const PROCESS_STOPPED =
  "The agent's process stopped while this task was running (it crashed, was killed or lost its database connection); send the request again";

/** The leases of a service whose coordinator is shared with other processes; `undefined` for one alone on its store. */
export function sharedLeases(coordinator: TaskCoordinator | undefined): TaskLeases | undefined {
  return coordinator?.shared ? new TaskLeases(coordinator) : undefined;
}

/**
 * Connects a shared coordinator to a service's engine and runner:
 * - a commit another process makes to a task running here (a cancel) is
 *   taken into the engine (waiters resolve) and, when it ended the task,
 *   aborts the run's signal, as a cancel made here would;
 * - a lease found lost aborts its run (its writes are refused anyway);
 * - a task whose process stopped, once this process has taken its lease
 *   over, runs again when the coordinator allows re-runs and this is not
 *   one too many (`runs` tracks it), and fails with {@link PROCESS_STOPPED}
 *   otherwise; its first commit here goes after a gap (see
 *   `TaskEngine.takenOver`), its own rows' too;
 * - another process's cancel asking for a run here to be aborted with a
 *   grace gets it (see `cancelRunForPeer`).
 */
export function linkCoordinator(
  coordinator: TaskCoordinator,
  leases: TaskLeases,
  engine: TaskEngine,
  runner: AgentRunner,
  runs: Set<Promise<void>>,
  logger: Logger | undefined,
): void {
  /** Runs the agent again on a task taken over at `epoch`, from its last user message; false when there is nothing to run. */
  const rerun = async (taskId: string, epoch: number): Promise<boolean> => {
    const record = await engine.get(taskId);
    const users = (record?.task.history ?? []).filter((m) => m.role === 'ROLE_USER');
    const message = users.at(-1);
    if (!record || !message || isSettled(record.task.status.state) || runner.isRunning(taskId)) return false;
    leases.claimed(taskId, epoch);
    engine.activate(record);
    // The caller's principal is not stored: the agent runs with none.
    const started = runner.start({ task: record.task, message, referencedTasks: [], principal: undefined, isContinuation: users.length > 1 }, { epoch });
    runs.add(started);
    void started.then(() => runs.delete(started));
    logger?.warn({ taskId }, 'Taskwire: running the agent again on a task whose process stopped');
    return true;
  };
  leases.bind({
    changed(taskId, lastSequence) {
      engine.refresh(taskId, lastSequence).then(
        (record) => {
          const state = record?.task.status.state;
          if (state === undefined || !isTerminal(state)) return;
          runner.abort(taskId, state === 'TASK_STATE_CANCELED' ? `Task ${taskId} was canceled` : `Task ${taskId} ended elsewhere (${state})`);
        },
        (error: unknown) => logger?.warn({ taskId, error: String(error) }, 'could not read a task another process changed; the next wake-up tries again'),
      );
    },
    lost(taskId, epoch) {
      runner.abort(taskId, new LeaseLostError(taskId).message, epoch);
    },
  });
  coordinator.attach({
    abortRun: (taskId, graceMs) => cancelRunForPeer(engine, runner, taskId, graceMs),
    async settleOrphan(taskId, epoch, takeovers) {
      // A run here still going has lost its lease (this process takes over only what it no longer holds): it stops.
      runner.abort(taskId, new LeaseLostError(taskId).message);
      // Its first commit goes after a gap whoever held it: a failover may have lost commits (and a cancel another
      // process made, or a take-over whose answer was lost) with numbers clients saw that this process never sent.
      await engine.takenOver(taskId);
      if (takeovers <= (coordinator.rerunOrphans ?? 0) && (await rerun(taskId, epoch))) return;
      leases.claimed(taskId, epoch);
      try {
        await runner.failAbandoned([taskId], PROCESS_STOPPED);
      } finally {
        leases.release(taskId);
      }
    },
  });
}
