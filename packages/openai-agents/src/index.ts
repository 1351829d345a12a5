/**
 * `@taskwire/openai-agents`: the OpenAI Agents SDK (`@openai/agents` 0.20)
 * and A2A. {@link openaiAgent} serves an Agents SDK agent as a Taskwire
 * agent.
 */
export { openaiAgent } from './openai-agent.js';
export type { OpenAIAgentOptions } from './openai-agent.js';
export { answerApprovals, approvalQuestion } from './approvals.js';
export { META_KEY } from './shapes.js';
export type { ApprovalAnswerData, ApprovalRequestData, ProgressData, TurnMeta, UsageRecord } from './shapes.js';
export { a2aTool, a2aToolParameters } from './a2a-tool.js';
export { remoteQuestionOf } from './remote-model.js';
export type { RemoteQuestionData } from './remote-model.js';
export type { A2AToolOptions, A2AToolOutput } from '@taskwire/client';
