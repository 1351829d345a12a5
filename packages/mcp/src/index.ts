/**
 * `@taskwire/mcp`: any A2A agent as an MCP server. `createMcpServer` makes
 * an `McpServer` (from `@modelcontextprotocol/sdk`) whose tools are the
 * agent's skills and task operations; `registerAgent` adds an agent to a
 * server of your own; the `taskwire-mcp` bin serves one over stdio or
 * Streamable HTTP.
 */
export { createMcpServer, VERSION } from './create-server.js';
export type { CreateMcpServerOptions } from './create-server.js';
export { registerAgent, DEFAULT_TIMEOUT_MS } from './register-agent.js';
export type { RegisterAgentOptions, RegisteredAgent } from './register-agent.js';
export { AgentLink } from './agent-link.js';
export type { AgentTarget } from './agent-link.js';
export { sanitizeToolName, skillToolNames } from './tool-names.js';
export type { TaskMeta } from './content.js';
export { runMcp } from './mcp-command.js';
export type { McpCliIo } from './mcp-command.js';
export { serveHttp } from './http-server.js';
export type { HttpBridge, ServeHttpOptions } from './http-server.js';
export { BridgeTaskStore } from './task-store.js';
