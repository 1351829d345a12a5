import type { LifecycleEvent } from '../lifecycle/index.js';
import type { StreamResponse, Task } from '../schema/index.js';
import { copyWith } from '../clone.js';

/**
 * The timestamps of status changes: `now` when given (tests), otherwise the
 * system clock formatted once per millisecond (ISO 8601).
 */
export class StatusClock {
  private lastMs = NaN;
  private lastIso = '';

  constructor(private readonly now?: () => Date) {}

  /** The current ISO timestamp. */
  timestamp(): string {
    if (this.now) return this.now().toISOString();
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** `event` with the current time on a status or message that has none (a copy; `event` itself when it has one). */
  stamp(event: LifecycleEvent): LifecycleEvent {
    if ('statusUpdate' in event && !event.statusUpdate.status.timestamp) {
      const status = copyWith(event.statusUpdate.status, { timestamp: this.timestamp() });
      return { statusUpdate: copyWith(event.statusUpdate, { status }) };
    }
    if ('message' in event && !event.timestamp) return { message: event.message, timestamp: this.timestamp() };
    return event;
  }
}

/** The log entry of an event applied to `task`: updates as they are; a continuing message as the resubmitted status. */
export function logEntryOf(task: Task, event: LifecycleEvent): StreamResponse {
  // An update event already has the stream response's shape ({statusUpdate} / {artifactUpdate}): log it as it is.
  if ('statusUpdate' in event || 'artifactUpdate' in event) return event;
  return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status } };
}
