import type { TaskState } from '@taskwire/core';
import { isInterrupted, isTerminal } from '@taskwire/core';

/** What a conversation knows of where it is: its context and its current task. */
export interface ConversationState {
  readonly contextId?: string | undefined;
  readonly taskId?: string | undefined;
  readonly state?: TaskState | undefined;
}

/** Where the next user message goes: the task to continue, or the tasks a new one refers to. */
export interface TaskRouting {
  /** `continue`: same task; `follow-up`: a new task referring to the previous one; `fresh`: a new, unrelated task. */
  readonly action: 'continue' | 'follow-up' | 'fresh';
  readonly contextId?: string | undefined;
  readonly taskId?: string | undefined;
  readonly referenceTaskIds?: readonly string[] | undefined;
}

/**
 * The task-id rule every A2A client needs, given the conversation's
 * current task:
 *
 * | current task state | next message |
 * | --- | --- |
 * | input-required, auth-required | continues it (same `taskId`) |
 * | completed, failed, canceled, rejected | starts a new task with `referenceTaskIds: [it]` |
 * | none, submitted, working | starts a new task |
 *
 * The `contextId` is always kept, so every task shares the conversation.
 */
export function routeNextMessage(current: ConversationState): TaskRouting {
  const { contextId, taskId, state } = current;
  if (taskId !== undefined && state !== undefined && isInterrupted(state)) return { action: 'continue', contextId, taskId };
  if (taskId !== undefined && state !== undefined && isTerminal(state)) {
    return { action: 'follow-up', contextId, referenceTaskIds: [taskId] };
  }
  return { action: 'fresh', contextId };
}
