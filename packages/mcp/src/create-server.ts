// createMcpServer: one A2A agent as an MCP server.
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CreateClientOptions } from '@taskwire/client';
import type { Logger } from '@taskwire/core';
import type { AgentTarget } from './agent-link.js';
import { AgentLink } from './agent-link.js';
import { describeFailure } from './failure.js';
import type { RegisterAgentOptions } from './register-agent.js';
import { registerAgent } from './register-agent.js';
import { BridgeTaskStore } from './task-store.js';

/** This package's version, sent as the MCP server's version. */
export const VERSION = '0.1.0';

/** Options of {@link createMcpServer}. */
export interface CreateMcpServerOptions extends RegisterAgentOptions {
  /**
   * The A2A agent: its URL (the card is read from it; the connection is
   * retried on each call until it succeeds), an `A2AClient` you made, or an
   * {@link AgentLink} to share one connection between several servers (one
   * per Streamable HTTP session).
   */
  readonly agent: AgentTarget | AgentLink;
  /** How to connect when `agent` is a URL: credentials (`auth`, `headers`), preferred bindings, timeouts... */
  readonly client?: CreateClientOptions;
  /** The MCP server's name. Default: `a2a-bridge <host>` from the agent's configured URL (never the card's name, which the agent chooses). */
  readonly name?: string;
  /** Told, at `warn`, when the agent cannot be reached at start (the server starts anyway). */
  readonly logger?: Logger;
  /** Offer MCP tasks (task-augmented `tools/call`, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`). Default: true. */
  readonly tasks?: boolean;
}

/** The default server name: `a2a-bridge` and the host of the configured URL. */
function bridgeName(label: string): string {
  return URL.canParse(label) ? `a2a-bridge ${new URL(label).host}` : 'a2a-bridge';
}

/**
 * An MCP server (the SDK's `McpServer`, not yet connected) exposing one A2A
 * agent: a tool per skill of its card (`send_message` without skills), the
 * task tools and resources (see {@link registerAgent}). Reads the card
 * first; when the agent cannot be reached it still resolves, with
 * `send_message` whose calls say why (and retry), and the skill tools appear
 * once the card can be read. Connect it to any transport
 * (`StdioServerTransport`, `StreamableHTTPServerTransport`), or use
 * {@link registerAgent} to add the agent to a server of your own.
 * Closing the server closes the connection it made from a URL (a client or
 * link you gave stays open). Unless `tasks: false`, it offers MCP tasks:
 * a client may call a message tool as a task and poll, read or cancel it.
 */
export async function createMcpServer(options: CreateMcpServerOptions): Promise<McpServer> {
  const owned = typeof options.agent === 'string' || options.agent instanceof URL; // a link or client you gave stays yours to close
  const link = options.agent instanceof AgentLink ? options.agent : new AgentLink(options.agent, options.client);
  try {
    await link.client();
  } catch (error) {
    options.logger?.warn({ agent: link.label }, describeFailure(error, link.label));
  }
  const taskStore = options.tasks === false ? undefined : new BridgeTaskStore();
  const server = new McpServer(
    { name: options.name ?? bridgeName(link.label), version: VERSION, description: `A bridge to the remote A2A agent at ${link.label}` },
    {
      capabilities: { logging: {}, ...(taskStore && { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }) },
      ...(taskStore && { taskStore, taskMessageQueue: new InMemoryTaskMessageQueue() }),
    },
  );
  const registered = registerAgent(server, link, { ...options, ...(taskStore && { taskStore }) });
  const close = server.close.bind(server);
  server.close = async () => {
    registered.dispose();
    taskStore?.cleanup();
    await close();
    if (owned) await link.close();
  };
  return server;
}
