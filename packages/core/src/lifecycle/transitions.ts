import type { TaskState } from '../schema/index.js';

/**
 * The lifecycle's one transition table: for each state, the states a status
 * update may move the task to. Terminal states allow nothing. Interrupted
 * states (input-required, auth-required) leave through the user's next
 * message (which resubmits the task) or by being canceled or failed; an
 * auth-required task may also go back to working, because the agent may
 * receive the credential out of band and continue without a client message
 * (spec 7.6.1). A working task may report working again (progress updates).
 */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  TASK_STATE_SUBMITTED: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
  ],
  TASK_STATE_WORKING: [
    'TASK_STATE_WORKING',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
  ],
  TASK_STATE_INPUT_REQUIRED: ['TASK_STATE_CANCELED', 'TASK_STATE_FAILED'],
  TASK_STATE_AUTH_REQUIRED: ['TASK_STATE_WORKING', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'],
  TASK_STATE_COMPLETED: [],
  TASK_STATE_FAILED: [],
  TASK_STATE_CANCELED: [],
  TASK_STATE_REJECTED: [],
};

/** True when a status update may move a task from `from` to `to`. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The state a task enters when the user's next message continues it. */
export const RESUBMITTED_STATE: TaskState = 'TASK_STATE_SUBMITTED';
