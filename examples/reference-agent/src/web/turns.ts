import type { ConversationView, ViewArtifact, ViewProgress } from '@taskwire/client';
import type { Message, StreamEvent, StreamResponse, TaskState } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';

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

/** The artifact chunks received, by task id, then artifact id (the view joins chunks, so it cannot count them). */
export type ChunkCounts = Map<string, Map<string, number>>;

/**
 * Counts the artifact chunks an event brings in `chunks`: a Task snapshot
 * sets each artifact's count to the parts it holds (the store keeps one part
 * per chunk), an appended chunk adds its parts, a replacing one starts over.
 */
export function countChunks(chunks: ChunkCounts, event: StreamEvent | StreamResponse): void {
  const response = 'response' in event ? event.response : event;
  if ('task' in response) {
    const { id, artifacts } = response.task;
    if (artifacts) chunks.set(id, new Map(artifacts.map((a) => [a.artifactId, a.parts.length])));
  } else if ('artifactUpdate' in response) {
    const { taskId, artifact, append } = response.artifactUpdate;
    const counts = chunks.get(taskId) ?? new Map<string, number>();
    counts.set(artifact.artifactId, (append ? (counts.get(artifact.artifactId) ?? 0) : 0) + artifact.parts.length);
    chunks.set(taskId, counts);
  }
}

/** The chunks of all of a task's artifacts received so far, if any were counted. */
function chunksOf(chunks: ChunkCounts, taskId: string): number | undefined {
  const counts = chunks.get(taskId);
  return counts && counts.size > 0 ? [...counts.values()].reduce((a, b) => a + b, 0) : undefined;
}

/**
 * The progress a turn shows: the agent's own `metadata.progress` while the
 * task runs; once it ended without completing (canceled, failed), the
 * chunks that actually arrived, which may be fewer than the last progress
 * the agent announced.
 */
function progressOf(progress: ViewProgress | undefined, state: TaskState | undefined, received: number | undefined): ViewProgress | undefined {
  if (!progress || received === undefined || state === undefined || !isTerminal(state) || state === 'TASK_STATE_COMPLETED') return progress;
  return { current: received, total: progress.total };
}

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
export function turnsOf(view: ConversationView, states: ReadonlyMap<string, TaskState>, chunks: ChunkCounts = new Map()): Turn[] {
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
  return groups.map(({ taskId, messages }) => {
    const state = taskId === undefined ? undefined : (states.get(taskId) ?? (taskId === view.taskId ? view.state : undefined));
    const progress = taskId !== undefined && taskId === view.taskId ? view.progress : undefined;
    return {
      taskId,
      state,
      referenceTaskIds: messages.find((m) => m.role === 'ROLE_USER' && m.referenceTaskIds?.length)?.referenceTaskIds ?? [],
      messages,
      artifacts: taskId === undefined ? [] : view.artifacts.filter((a) => a.taskId === taskId),
      progress: taskId === undefined ? undefined : progressOf(progress, state, chunksOf(chunks, taskId)),
    };
  });
}

/** A task state as people write it: `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateLabel(state: TaskState | undefined): string {
  if (state === undefined) return 'sending';
  return state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
}
