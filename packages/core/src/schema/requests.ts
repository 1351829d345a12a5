import * as z from 'zod';
import { GenerationSchema, IdSchema, NonNegativeIntSchema, StructSchema, TimestampSchema } from './common.js';
import { MessageSchema } from './message.js';
import { TaskPushNotificationConfigSchema } from './push.js';
import { TaskSchema, TaskStateSchema } from './task.js';

/** How a SendMessage call should behave. */
export const SendMessageConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  taskPushNotificationConfig: TaskPushNotificationConfigSchema.optional(),
  historyLength: NonNegativeIntSchema.optional(),
  returnImmediately: z.boolean().optional(),
  /** A2A 1.1: refuse the message unless the task's generation is this (see `TaskServiceOptions.protocol`). */
  ifGenerationMatch: GenerationSchema.optional(),
});
/** SendMessage configuration. */
export type SendMessageConfiguration = z.infer<typeof SendMessageConfigurationSchema>;

/** Params of SendMessage and SendStreamingMessage. The message must come from the user. */
export const SendMessageRequestSchema = z.object({
  tenant: z.string().optional(),
  message: MessageSchema.refine((m) => m.role === 'ROLE_USER', {
    message: 'a message sent to an agent must have role ROLE_USER',
    path: ['role'],
  }),
  configuration: SendMessageConfigurationSchema.optional(),
  metadata: StructSchema.optional(),
});
/** SendMessage params. */
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

/** Params of GetTask. */
export const GetTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
  historyLength: NonNegativeIntSchema.optional(),
  /** A2A 1.1: answer once the task's generation is greater than this (a long poll; see `TaskServiceOptions.protocol`). */
  currentGeneration: GenerationSchema.optional(),
});
/** GetTask params. */
export type GetTaskRequest = z.infer<typeof GetTaskRequestSchema>;

/** Default and maximum page sizes of ListTasks. */
export const LIST_TASKS_PAGE_SIZE = { default: 50, min: 1, max: 100 } as const;

/** Params of ListTasks: filters, cursor pagination and projection. */
export const ListTasksRequestSchema = z.object({
  tenant: z.string().optional(),
  contextId: z.string().optional(),
  status: z
    .union([TaskStateSchema, z.literal('TASK_STATE_UNSPECIFIED')])
    .optional()
    .transform((s) => (s === 'TASK_STATE_UNSPECIFIED' ? undefined : s)),
  pageSize: z
    .number()
    .int()
    .min(LIST_TASKS_PAGE_SIZE.min, `must be between 1 and 100 inclusive`)
    .max(LIST_TASKS_PAGE_SIZE.max, `must be between 1 and 100 inclusive`)
    .optional(),
  pageToken: z.string().optional(),
  historyLength: NonNegativeIntSchema.optional(),
  statusTimestampAfter: TimestampSchema.optional(),
  includeArtifacts: z.boolean().optional(),
});
/** ListTasks params (after parsing: an UNSPECIFIED status means no filter). */
export type ListTasksRequest = z.infer<typeof ListTasksRequestSchema>;

/** ListTasks result. `nextPageToken` is `""` on the last page. */
export const ListTasksResponseSchema = z.object({
  tasks: z.array(TaskSchema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});
/** ListTasks result. */
export type ListTasksResponse = z.infer<typeof ListTasksResponseSchema>;

/** Params of CancelTask. */
export const CancelTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
  metadata: StructSchema.optional(),
});
/** CancelTask params. */
export type CancelTaskRequest = z.infer<typeof CancelTaskRequestSchema>;

/**
 * Params of SubscribeToTask. `afterSequence` is Taskwire's resume point: the
 * stream replays the events after that sequence number instead of starting
 * with the current task (transports carry it as SSE `Last-Event-ID`, a tRPC
 * tracked id or gRPC metadata).
 */
export const SubscribeToTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
  afterSequence: NonNegativeIntSchema.optional(),
});
/** SubscribeToTask params. */
export type SubscribeToTaskRequest = z.infer<typeof SubscribeToTaskRequestSchema>;

/** Params of GetExtendedAgentCard. */
export const GetExtendedAgentCardRequestSchema = z.object({ tenant: z.string().optional() });
/** GetExtendedAgentCard params. */
export type GetExtendedAgentCardRequest = z.infer<typeof GetExtendedAgentCardRequestSchema>;
