import * as z from 'zod';
import { GenerationSchema, IdSchema, oneof, StructSchema, TimestampSchema } from './common.js';
import { ArtifactSchema, MessageSchema } from './message.js';

/** Every task state a task can be in (`TASK_STATE_UNSPECIFIED` is never stored). */
export const TaskStateSchema = z.enum([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
]);
/** A task's lifecycle state. */
export type TaskState = z.infer<typeof TaskStateSchema>;

/** States after which a task never changes again. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
/** States in which a task waits for the client's next message on the same task. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** True for completed, failed, canceled and rejected. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}
/** True for input-required and auth-required. */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED_STATES.has(state);
}
/** True when a blocking send or a stream stops waiting: terminal or interrupted. */
export function isSettled(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/** A task's current state, an optional agent message about it, and when it was set. */
export const TaskStatusSchema = z.object({
  state: TaskStateSchema,
  message: MessageSchema.optional(),
  timestamp: TimestampSchema.optional(),
});
/** A task status. */
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A stateful unit of work (v1.0 wire shape). */
export const TaskSchema = z.object({
  id: IdSchema,
  contextId: z.string(),
  status: TaskStatusSchema,
  artifacts: z.array(ArtifactSchema).optional(),
  history: z.array(MessageSchema).optional(),
  metadata: StructSchema.optional(),
  /** A2A 1.1, on calls that negotiated it: 1 at creation, one more per status or artifact change. */
  generation: GenerationSchema.optional(),
});
/** A task. */
export type Task = z.infer<typeof TaskSchema>;

/** A change of a task's status, sent on streams and to webhooks. */
export const TaskStatusUpdateEventSchema = z.object({
  taskId: IdSchema,
  contextId: z.string(),
  status: TaskStatusSchema,
  metadata: StructSchema.optional(),
  /** A2A 1.1, on calls that negotiated it: the task's generation once this update is applied. */
  generation: GenerationSchema.optional(),
});
/** A status update event. */
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEventSchema>;

/**
 * A new or updated artifact. `append: true` adds the parts to the artifact
 * with the same id; `lastChunk: true` marks its final chunk.
 */
export const TaskArtifactUpdateEventSchema = z.object({
  taskId: IdSchema,
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: StructSchema.optional(),
  /** A2A 1.1, on calls that negotiated it: the task's generation once this update is applied. */
  generation: GenerationSchema.optional(),
});
/** An artifact update event. */
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEventSchema>;

/** One item of a stream: exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`. */
export const StreamResponseSchema = oneof(
  'a stream response',
  ['task', 'message', 'statusUpdate', 'artifactUpdate'],
  z.union([
    z.object({ task: TaskSchema }),
    z.object({ message: MessageSchema }),
    z.object({ statusUpdate: TaskStatusUpdateEventSchema }),
    z.object({ artifactUpdate: TaskArtifactUpdateEventSchema }),
  ]),
);
/** A stream response (the proto `oneof payload`). */
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

/** The result of SendMessage: a task, or a direct message. */
export const SendMessageResponseSchema = oneof(
  'a send-message response',
  ['task', 'message'],
  z.union([z.object({ task: TaskSchema }), z.object({ message: MessageSchema })]),
);
/** SendMessage's result. */
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;
