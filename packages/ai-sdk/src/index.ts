/**
 * `@taskwire/ai-sdk`: the Vercel AI SDK (`ai` 7) and A2A, both ways.
 * {@link a2aAgent} serves an AI SDK agent (or `streamText` configuration)
 * as a Taskwire agent; {@link a2aTool} gives an AI SDK agent another A2A
 * agent as a tool.
 */
export { a2aAgent } from './a2a-agent.js';
export type { A2AAgentOptions, AiSdkSource, StreamTextConfig } from './a2a-agent.js';
export { contextTasks } from './context-tasks.js';
export { a2aTool, a2aToolInput } from './a2a-tool.js';
export type { A2AToolInput, A2AToolOptions, A2ATarget } from './a2a-tool.js';
export type { A2AToolArtifact, A2AToolOutput } from '@taskwire/client';
export { answerApprovals, approvalQuestion } from './approvals.js';
export { conversationOf, modelMessages, userPart } from './model-messages.js';
export { META_KEY } from './shapes.js';
export type { ApprovalAnswerData, ApprovalRequestData, MessageKind, ProgressData, UsageRecord } from './shapes.js';
export { USAGE_ATTRIBUTES } from './usage.js';
