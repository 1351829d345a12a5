import type { A2AClient } from '@taskwire/client';
import type { StreamEvent, Task } from '@taskwire/core';
import { issuePath, MessageSchema, StreamResponseSchema, TaskArtifactUpdateEventSchema, TaskSchema, TaskStatusUpdateEventSchema } from '@taskwire/core';

/** The part of a client the check battery uses. */
export type CheckClient = Pick<A2AClient, 'sendStreamingMessage' | 'subscribeToTask' | 'getTask' | 'cancelTask'>;

/** An agent's answer that is not the shape A2A gives it: the message names what came and what was expected. */
export class AnswerShapeError extends Error {
  override readonly name = 'AnswerShapeError';
}

/** A short, one-line view of what the agent sent. */
function glimpse(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The schema of each member of a StreamResponse, to name the field that is wrong rather than the union. */
const MEMBERS = { task: TaskSchema, message: MessageSchema, statusUpdate: TaskStatusUpdateEventSchema, artifactUpdate: TaskArtifactUpdateEventSchema } as const;

type Issues = { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] };

function issues(error: Issues, prefix: readonly PropertyKey[] = []): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issuePath([...prefix, ...issue.path]) || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** `value` when it is a Task (core's `TaskSchema`); else throws an {@link AnswerShapeError} naming `what`. */
export function asTask(value: unknown, what: string): Task {
  const parsed = TaskSchema.safeParse(value);
  if (parsed.success) return value as Task;
  throw new AnswerShapeError(`${what} answered ${glimpse(value)}, expected a Task ({id, contextId, status: {state}}): ${issues(parsed.error)}`);
}

/** `event` when its response is a StreamResponse (core's `StreamResponseSchema`); else throws an {@link AnswerShapeError} naming `what`. */
export function asStreamEvent(event: unknown, what: string): StreamEvent {
  const response = (event as { response?: unknown } | null | undefined)?.response;
  const parsed = StreamResponseSchema.safeParse(response);
  if (parsed.success && typeof (event as StreamEvent).sequence === 'number') return event as StreamEvent;
  const why = parsed.success ? 'it has no sequence number' : memberIssues(response) ?? issues(parsed.error);
  throw new AnswerShapeError(`${what} sent the event ${glimpse(response)}, expected one of task, message, statusUpdate, artifactUpdate: ${why}`);
}

/** When `response` names one member of a StreamResponse, what is wrong inside it. */
function memberIssues(response: unknown): string | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const keys = Object.keys(response).filter((key): key is keyof typeof MEMBERS => Object.hasOwn(MEMBERS, key));
  if (keys.length !== 1) return undefined;
  const inner = MEMBERS[keys[0]!].safeParse((response as Record<string, unknown>)[keys[0]!]);
  return inner.success ? undefined : issues(inner.error, [keys[0]!]);
}

async function* checkedStream(events: AsyncIterable<unknown>, what: string): AsyncGenerator<StreamEvent> {
  for await (const event of events) yield asStreamEvent(event, what);
}

/**
 * `client` with every answer the battery reads checked against core's
 * schemas: a result that is not a Task, or a stream event that is not a
 * StreamResponse, is thrown as an {@link AnswerShapeError} saying what came
 * and what was expected, so that no check reads a field of a wrong shape.
 */
export function shapeChecked(client: CheckClient): CheckClient {
  return {
    sendStreamingMessage: (params, options) => checkedStream(client.sendStreamingMessage(params, options), 'SendStreamingMessage'),
    subscribeToTask: (params, options) => checkedStream(client.subscribeToTask(params, options), 'SubscribeToTask'),
    getTask: async (params, options) => asTask(await client.getTask(params, options), 'GetTask'),
    cancelTask: async (params, options) => asTask(await client.cancelTask(params, options), 'CancelTask'),
  };
}
