import { A2AError } from '@taskwire/core';

/**
 * A stream event's id on the WebSocket binding: `<sequence>:<taskId>`, the
 * task event's sequence number and the task it belongs to. tRPC clients send
 * the last one they received back as `lastEventId` when they resubscribe, and
 * the server resumes right after it; the task id lets a resumed
 * SendStreamingMessage continue as a SubscribeToTask of the task it created.
 */
export function formatEventId(sequence: number, taskId: string): string {
  return `${sequence}:${taskId}`;
}

/** A parsed stream event id. */
export interface EventPosition {
  readonly sequence: number;
  readonly taskId: string;
}

/** Parses an id made by {@link formatEventId}; throws InvalidParams for anything else. */
export function parseEventId(id: string): EventPosition {
  const match = /^(\d+):(.+)$/s.exec(id);
  const sequence = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isSafeInteger(sequence)) {
    throw new A2AError(
      'InvalidParams',
      `Invalid parameters: lastEventId: "${id.slice(0, 80)}" is not an event id of this server; send back the id of the last event received (<sequence>:<taskId>), or none`,
    );
  }
  return { sequence, taskId: match[2]! };
}
