/**
 * `@taskwire/client`: one A2A client over every transport. This entry runs
 * in browsers and Node (no Node built-ins); gRPC and WebSocket transports
 * are at `@taskwire/client/grpc` and `@taskwire/client/ws`, the CLI is the
 * `taskwire` bin.
 */
export * from './transport/json-rpc.js';
export * from './transport/http-json.js';
export * from './transport/json-rpc-v03.js';
export * from './client.js';
export { activatedExtensions } from './activated-extensions.js';
export * from './create-client.js';
export * from './agent-card.js';
export * from './default-transports.js';
export * from './interceptors.js';
export * from './auth/token-provider.js';
export * from './auth/bearer-transport.js';
export * from './auth/origins.js';
export * from './auth/credential-flags.js';
export * from './auth/redirects.js';
export * from './auth/credential-guard.js';
export * from './retry.js';
export * from './transient.js';
export * from './backoff.js';
export * from './clock.js';
export * from './wait-for-task.js';
export { pollTask, WaitTimeoutError } from './poll-task.js';
export type { PollOptions } from './poll-task.js';
export * from './resumable-stream.js';
export { untilSettled } from './until-settled.js';
export { applyResponse } from './follow-task.js';
export { pollingStream } from './polling-stream.js';
export * from './task-routing.js';
export { Conversation, textOfMessage } from './conversation.js';
export type { ConversationInput, ConversationReply, SendOptions } from './conversation.js';
export * from './view/reduce.js';
export { isTaskLike, normalizeEvent } from './view/normalize.js';
export { callSignal, isAbort } from './signals.js';
export { escapeJsonControls, stripControls } from './cli/terminal.js';
export { finalOutput, remoteAgentCalls, toolDescription, toolName } from './agent-tool.js';
export type { A2AToolCall, A2AToolOptions, A2ATarget } from './agent-tool.js';
export { taskOutput } from './tool-output.js';
export type { A2AToolArtifact, A2AToolOutput } from './tool-output.js';
