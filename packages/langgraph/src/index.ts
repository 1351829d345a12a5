/**
 * `@taskwire/langgraph`: LangGraph.js and A2A. {@link langGraphAgent}
 * serves a compiled graph as a Taskwire agent.
 */
export { langGraphAgent } from './graph-agent.js';
export type { InterruptData, LangGraphAgentOptions, NodeUpdateData, StreamingGraph } from './graph-agent.js';
export { a2aTool, a2aToolSchema } from './a2a-tool.js';
export type { A2AToolOptions, A2AToolOutput } from '@taskwire/client';
