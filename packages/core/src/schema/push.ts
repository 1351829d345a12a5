import * as z from 'zod';
import { IdSchema } from './common.js';

/** The auth a server uses when it calls a webhook: `Authorization: <scheme> <credentials>`. */
export const AuthenticationInfoSchema = z.object({
  scheme: z.string().min(1),
  credentials: z.string().optional(),
});
/** Webhook authentication. */
export type AuthenticationInfo = z.infer<typeof AuthenticationInfoSchema>;

/** A webhook registered for one task's updates. `url` must be http(s). */
export const TaskPushNotificationConfigSchema = z.object({
  tenant: z.string().optional(),
  id: z.string().optional(),
  taskId: z.string().optional(),
  url: z.url({ protocol: /^https?$/ }),
  token: z.string().optional(),
  authentication: AuthenticationInfoSchema.optional(),
});
/** A push notification config. */
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;

/** Params of CreateTaskPushNotificationConfig: the config itself, naming its task. */
export const CreatePushConfigRequestSchema = TaskPushNotificationConfigSchema.extend({ taskId: IdSchema });
/** CreateTaskPushNotificationConfig params. */
export type CreatePushConfigRequest = z.infer<typeof CreatePushConfigRequestSchema>;

/** Params of GetTaskPushNotificationConfig and DeleteTaskPushNotificationConfig. */
export const PushConfigRefSchema = z.object({
  tenant: z.string().optional(),
  taskId: IdSchema,
  id: IdSchema,
});
/** A reference to one push config. */
export type PushConfigRef = z.infer<typeof PushConfigRefSchema>;

/** Params of ListTaskPushNotificationConfigs. */
export const ListPushConfigsRequestSchema = z.object({
  tenant: z.string().optional(),
  taskId: IdSchema,
  pageSize: z.number().int().min(0).max(100).optional(),
  pageToken: z.string().optional(),
});
/** ListTaskPushNotificationConfigs params. */
export type ListPushConfigsRequest = z.infer<typeof ListPushConfigsRequestSchema>;

/** ListTaskPushNotificationConfigs result. */
export const ListPushConfigsResponseSchema = z.object({
  configs: z.array(TaskPushNotificationConfigSchema),
  nextPageToken: z.string().optional(),
});
/** ListTaskPushNotificationConfigs result. */
export type ListPushConfigsResponse = z.infer<typeof ListPushConfigsResponseSchema>;

/** DeleteTaskPushNotificationConfig result (`google.protobuf.Empty`). */
export const EmptySchema = z.object({}).strict();
/** An empty result. */
export type Empty = z.infer<typeof EmptySchema>;
