import type { ConversationView, ViewArtifact, ViewProgress } from '@taskwire/client';
import type { Message, StreamEvent, StreamResponse, TaskState } from '@taskwire/core';

/**
 * One turn of the chat as the page shows it: a task with its messages,
 * artifacts and state, or (`taskId` undefined) what was sent before the
 * agent named a task.
 */
export interface Turn {
  readonly taskId: string | undefined;
  readonly state: TaskState | undefined;
  /** The tasks this one follows up on (`referenceTaskIds` of its first user message). */
  readonly referenceTaskIds: readonly string[];
  readonly messages: readonly Message[];
  readonly artifacts: readonly ViewArtifact[];
  /** `metadata.progress` of the task's latest status update, while it is the conversation's latest task. */
  readonly progress: ViewProgress | undefined;
}

/** The state of every task seen, by task id (the view keeps only the latest task's). */
export type TaskStates = Map<string, TaskState>;

/** Records the task state an event carries (a Task snapshot or a status update) in `states`. */
export function trackState(states: TaskStates, event: StreamEvent | StreamResponse): void {
  const response = 'response' in event ? event.response : event;
  if ('task' in response) states.set(response.task.id, response.task.status.state);
  else if ('statusUpdate' in response) states.set(response.statusUpdate.taskId, response.statusUpdate.status.state);
}

/**
 * Groups a conversation view into turns, in the order the view lists its
 * messages: a task's messages go to its turn (a task appears once, where its
 * first message is); consecutive messages without a task form a turn of
 * their own; artifacts join their task's turn (a task with artifacts but no
 * message, or the latest task when it has neither, gets a turn at the end).
 */
export function turnsOf(view: ConversationView, states: ReadonlyMap<string, TaskState>): Turn[] {
  const groups: { taskId: string | undefined; messages: Message[] }[] = [];
  const byTask = new Map<string, { taskId: string | undefined; messages: Message[] }>();
  for (const message of view.messages) {
    const taskId = message.taskId;
    let group = taskId === undefined ? undefined : byTask.get(taskId);
    if (!group && taskId === undefined) {
      const last = groups[groups.length - 1];
      if (last && last.taskId === undefined) group = last;
    }
    if (!group) {
      group = { taskId, messages: [] };
      groups.push(group);
      if (taskId !== undefined) byTask.set(taskId, group);
    }
    group.messages.push(message);
  }
  for (const taskId of [...view.artifacts.map((a) => a.taskId), view.taskId]) {
    if (taskId !== undefined && !byTask.has(taskId)) {
      const group = { taskId, messages: [] };
      groups.push(group);
      byTask.set(taskId, group);
    }
  }
  return groups.map(({ taskId, messages }) => ({
    taskId,
    state: taskId === undefined ? undefined : (states.get(taskId) ?? (taskId === view.taskId ? view.state : undefined)),
    referenceTaskIds: messages.find((m) => m.role === 'ROLE_USER' && m.referenceTaskIds?.length)?.referenceTaskIds ?? [],
    messages,
    artifacts: taskId === undefined ? [] : view.artifacts.filter((a) => a.taskId === taskId),
    progress: taskId !== undefined && taskId === view.taskId ? view.progress : undefined,
  }));
}

/** A task state as people write it: `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateLabel(state: TaskState | undefined): string {
  if (state === undefined) return 'sending';
  return state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
}
