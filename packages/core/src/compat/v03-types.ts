/**
 * The A2A v0.3 JSON shapes (JSON-RPC binding), as v0.3 clients and servers
 * send them: objects carry a `kind` discriminator, states are lowercase
 * kebab-case, roles are `user` / `agent`, files sit in a nested `file`.
 * Taskwire speaks v1.0 internally; these types exist only at the edge,
 * where the converters of this folder translate them.
 */

/** A free-form JSON object. */
export type V03Struct = Record<string, unknown>;

/** A v0.3 task state (`unknown` has no v1.0 counterpart but `TASK_STATE_UNSPECIFIED`). */
export type V03TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

/** Who sent a v0.3 message. */
export type V03Role = 'user' | 'agent';

/** `{ kind: "text", text }`. */
export interface V03TextPart {
  readonly kind: 'text';
  readonly text: string;
  readonly metadata?: V03Struct;
}

/** The inline-bytes form of a v0.3 file (base64). */
export interface V03FileWithBytes {
  readonly bytes: string;
  readonly mimeType?: string;
  readonly name?: string;
}

/** The by-reference form of a v0.3 file. */
export interface V03FileWithUri {
  readonly uri: string;
  readonly mimeType?: string;
  readonly name?: string;
}

/** `{ kind: "file", file: { bytes | uri, mimeType, name } }`. */
export interface V03FilePart {
  readonly kind: 'file';
  readonly file: V03FileWithBytes | V03FileWithUri;
  readonly metadata?: V03Struct;
}

/** `{ kind: "data", data }`; v0.3 data is always a JSON object. */
export interface V03DataPart {
  readonly kind: 'data';
  readonly data: V03Struct;
  readonly metadata?: V03Struct;
}

/** One v0.3 part. */
export type V03Part = V03TextPart | V03FilePart | V03DataPart;

/** A v0.3 message. */
export interface V03Message {
  readonly kind: 'message';
  readonly messageId: string;
  readonly role: V03Role;
  readonly parts: readonly V03Part[];
  readonly contextId?: string;
  readonly taskId?: string;
  readonly referenceTaskIds?: readonly string[];
  readonly extensions?: readonly string[];
  readonly metadata?: V03Struct;
}

/** A v0.3 artifact. */
export interface V03Artifact {
  readonly artifactId: string;
  readonly name?: string;
  readonly description?: string;
  readonly parts: readonly V03Part[];
  readonly metadata?: V03Struct;
  readonly extensions?: readonly string[];
}

/** A v0.3 task status. */
export interface V03TaskStatus {
  readonly state: V03TaskState;
  readonly message?: V03Message;
  readonly timestamp?: string;
}

/** A v0.3 task. */
export interface V03Task {
  readonly kind: 'task';
  readonly id: string;
  readonly contextId: string;
  readonly status: V03TaskStatus;
  readonly artifacts?: readonly V03Artifact[];
  readonly history?: readonly V03Message[];
  readonly metadata?: V03Struct;
}

/** A v0.3 status update; `final` marks the last event of a stream. */
export interface V03TaskStatusUpdateEvent {
  readonly kind: 'status-update';
  readonly taskId: string;
  readonly contextId: string;
  readonly status: V03TaskStatus;
  readonly final: boolean;
  readonly metadata?: V03Struct;
}

/** A v0.3 artifact update. */
export interface V03TaskArtifactUpdateEvent {
  readonly kind: 'artifact-update';
  readonly taskId: string;
  readonly contextId: string;
  readonly artifact: V03Artifact;
  readonly append?: boolean;
  readonly lastChunk?: boolean;
  readonly metadata?: V03Struct;
}

/** What one v0.3 stream event (`result` of an SSE JSON-RPC response) carries. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

/** How a server authenticates to a webhook (v0.3 lists several schemes). */
export interface V03PushNotificationAuthenticationInfo {
  readonly schemes: readonly string[];
  readonly credentials?: string;
}

/** A v0.3 webhook configuration. */
export interface V03PushNotificationConfig {
  readonly id?: string;
  readonly url: string;
  readonly token?: string;
  readonly authentication?: V03PushNotificationAuthenticationInfo;
}

/** A v0.3 webhook configuration bound to a task (params of `tasks/pushNotificationConfig/set`). */
export interface V03TaskPushNotificationConfig {
  readonly taskId: string;
  readonly pushNotificationConfig: V03PushNotificationConfig;
}

/** `configuration` of `message/send`: `blocking` defaults to true. */
export interface V03MessageSendConfiguration {
  readonly acceptedOutputModes?: readonly string[];
  readonly blocking?: boolean;
  readonly historyLength?: number;
  readonly pushNotificationConfig?: V03PushNotificationConfig;
}

/** Params of `message/send` and `message/stream`. */
export interface V03MessageSendParams {
  readonly message: V03Message;
  readonly configuration?: V03MessageSendConfiguration;
  readonly metadata?: V03Struct;
}

/** Params of `tasks/get`. */
export interface V03TaskQueryParams {
  readonly id: string;
  readonly historyLength?: number;
  readonly metadata?: V03Struct;
}

/** Params of `tasks/cancel`, `tasks/resubscribe` and `tasks/pushNotificationConfig/list`. */
export interface V03TaskIdParams {
  readonly id: string;
  readonly metadata?: V03Struct;
}

/** Params of `tasks/pushNotificationConfig/get` and `.../delete`. */
export interface V03PushConfigParams {
  readonly id: string;
  readonly pushNotificationConfigId?: string;
  readonly metadata?: V03Struct;
}
