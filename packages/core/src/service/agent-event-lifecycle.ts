import type { AgentEvent } from '../agent/events.js';
import * as build from '../agent/events.js';
import type { LifecycleEvent } from '../lifecycle/index.js';
import type { Task, TaskStatus } from '../schema/index.js';

/**
 * The lifecycle event of an agent event on `task`: the event filled in with
 * the task's ids, its message (if any) made an agent message with an id
 * from `newId`. A `reply` on a stored task completes it with the message; a
 * `refuse` fails it with the error's message. Pure: nothing is committed.
 */
export function lifecycleOf(task: Pick<Task, 'id' | 'contextId'>, event: AgentEvent, newId: () => string): LifecycleEvent {
  if (event.kind === 'reply') return lifecycleOf(task, build.completed(event.message), newId);
  if (event.kind === 'refuse') return lifecycleOf(task, build.failed(event.error.message), newId);
  const ids = { taskId: task.id, contextId: task.contextId };
  if (event.kind === 'artifact') {
    return {
      artifactUpdate: {
        ...ids,
        artifact: event.artifact,
        ...(event.append !== undefined && { append: event.append }),
        ...(event.lastChunk !== undefined && { lastChunk: event.lastChunk }),
        ...(event.metadata && { metadata: event.metadata }),
      },
    };
  }
  const message = event.message === undefined ? undefined : build.agentMessage(event.message, ids, newId);
  // Literals of fixed shapes, not conditional spreads (those give each object a hidden class of its own).
  const status: TaskStatus = message ? { state: event.state, message } : { state: event.state };
  return {
    statusUpdate: event.metadata
      ? { taskId: ids.taskId, contextId: ids.contextId, status, metadata: event.metadata }
      : { taskId: ids.taskId, contextId: ids.contextId, status },
  };
}
