// Puts one A2A agent on an McpServer: message tools from its card, the task
// tools, the card and the session's tasks as resources.
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentCard } from '@taskwire/core';
import type { AgentLink } from './agent-link.js';
import { taskUri } from './content.js';
import { describeFailure } from './failure.js';
import type { MessageArgs, TurnContext } from './send-turn.js';
import { runTurn } from './send-turn.js';
import { messageTaskHandler } from './task-run.js';
import type { TaskScope } from './task-scope.js';
import { notYours } from './task-scope.js';
import type { BridgeTaskStore } from './task-store.js';
import { registerTaskTools, withAgent } from './task-tools.js';
import { SEND_MESSAGE, sendMessageDescription, skillDescription, skillToolNames } from './tool-names.js';
import { messageToolShape } from './tool-schemas.js';

/** Options of {@link registerAgent}. */
export interface RegisterAgentOptions {
  /** Put before every tool name (to embed several agents in one server), e.g. `weather_`. Default: none. */
  readonly toolPrefix?: string;
  /** Gives up waiting for a task after this many ms, with an `isError` result (the task goes on). Default: 300000; 0: never. */
  readonly timeoutMs?: number;
  /** The URI of the card resource. Default: `a2a://card` (with a prefix: `a2a://<prefix>card`). */
  readonly cardUri?: string;
  /**
   * MCP tasks (2025-11-25): the store the server was made with (its
   * `taskStore` option, with a `taskMessageQueue` for elicitations, and the
   * `tasks` capability). With it the message tools are task-capable
   * (`taskSupport: 'optional'`): a task-augmented `tools/call` returns an
   * MCP task that follows the A2A task. {@link createMcpServer} sets it up.
   */
  readonly taskStore?: BridgeTaskStore;
  /**
   * The A2A tasks and contexts this server's session may use (see
   * `TaskOwners`): the Streamable HTTP endpoint gives each session one, since
   * all sessions reach the agent as the same caller. Default: all of them
   * (one session, as on stdio).
   */
  readonly scope?: TaskScope;
  /** How elicitations name the agent: the name the user configured it under. Default: the URL it was configured with (never its card's name). */
  readonly agentName?: string;
}

/** What {@link registerAgent} returns. */
export interface RegisteredAgent {
  /** The task ids this server's session has touched (they are listed as resources). */
  readonly tasks: ReadonlySet<string>;
  /** Makes the tools follow `card` now (it is called by itself whenever the agent link reads a new card). */
  syncTools(card: AgentCard | undefined): void;
  /** Stops following the card. */
  dispose(): void;
}

/** True when the client declared form elicitation (`elicitation: {}` means form, per MCP 2025-11-25). */
function formElicitation(server: McpServer): boolean {
  const declared = server.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  return declared !== undefined && (declared.form !== undefined || declared.url === undefined);
}

/** The default time limit of a message tool call. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Registers the agent behind `link` on `server`: one tool per skill of its
 * card (or `send_message` when the card has none or could not be read yet),
 * `get_task`, `list_tasks`, `cancel_task`, the card as a resource and each
 * task the session touched as a resource (`a2a://tasks/{taskId}`). The tools
 * follow the card: when the link reads a different card, skill tools are
 * added, updated or removed (the SDK tells the client the list changed).
 * Tool handlers never throw; failures are `isError` results.
 */
export function registerAgent(server: McpServer, link: AgentLink, options: RegisterAgentOptions = {}): RegisteredAgent {
  const prefix = options.toolPrefix ?? '';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const tasks = new Set<string>();
  const onTask = (id: string) => {
    if (tasks.has(id)) return;
    tasks.add(id);
    if (server.isConnected()) server.sendResourceListChanged();
  };
  const messageTools = new Map<string, RegisteredTool>();

  const turn = (name: string) => (args: MessageArgs, call: Pick<TurnContext, 'client' | 'extra' | 'onUpdate' | 'onTask'>) =>
    runTurn(args, {
      ...call,
      toolName: name,
      agent: link.label,
      ...(options.agentName !== undefined && { agentName: options.agentName }),
      timeoutMs,
      canElicit: formElicitation(server),
      scope: options.scope,
      onTask: (id) => (onTask(id), call.onTask(id)),
    });

  const messageTool = (name: string, description: string, title: string | undefined): RegisteredTool => {
    const config = { description, inputSchema: messageToolShape, ...(title && { title }) };
    const run = turn(name);
    if (options.taskStore) {
      const handler = messageTaskHandler({ server, link, store: options.taskStore, run });
      return server.experimental.tasks.registerToolTask(name, { ...config, execution: { taskSupport: 'optional' } }, handler);
    }
    return server.registerTool(name, config, (args, extra) => withAgent(link, (client) => run(args, { client, extra, onTask: () => {} })));
  };

  const syncTools = (card: AgentCard | undefined) => {
    const skills = card?.skills ?? [];
    const wanted = new Map<string, { description: string; title?: string }>();
    if (card && skills.length > 0) {
      skillToolNames(skills, prefix).forEach((name, i) => wanted.set(name, { description: skillDescription(skills[i]!, card), title: skills[i]!.name }));
    } else {
      wanted.set(`${prefix}${SEND_MESSAGE}`, { description: sendMessageDescription(card) });
    }
    for (const [name, tool] of messageTools) {
      if (!wanted.has(name)) {
        tool.remove();
        messageTools.delete(name);
      }
    }
    for (const [name, { description, title }] of wanted) {
      const tool = messageTools.get(name);
      if (!tool) messageTools.set(name, messageTool(name, description, title));
      else if (tool.description !== description) tool.update({ description, ...(title && { title }) });
    }
  };

  syncTools(link.card);
  registerTaskTools(server, { link, prefix, onTask, scope: options.scope });
  const cardUri = options.cardUri ?? `a2a://${prefix}card`;
  server.registerResource('agent-card', cardUri, { title: 'The A2A agent card', mimeType: 'application/json' }, async (uri) => {
    try {
      const card = (await link.client()).card;
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(card ?? null, null, 2) }] };
    } catch (error) {
      throw new Error(describeFailure(error, link.label));
    }
  });
  const template = new ResourceTemplate(`a2a://${prefix}tasks/{taskId}`, {
    list: () => ({ resources: [...tasks].map((id) => ({ uri: taskUri(id).replace('a2a://', `a2a://${prefix}`), name: `task ${id}`, mimeType: 'application/json' })) }),
  });
  server.registerResource('a2a-task', template, { title: 'An A2A task this session touched', mimeType: 'application/json' }, async (uri, { taskId }) => {
    const id = decodeURIComponent(String(taskId));
    if (options.scope && !options.scope.mayUseTask(id)) throw new Error(notYours('task', id));
    const result = await withAgent(link, async (client) => ({ content: [{ type: 'text', text: JSON.stringify(await client.getTask({ id }), null, 2) }] }));
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    if (result.isError) throw new Error(text);
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
  });
  const dispose = link.onCard(syncTools);
  return { tasks, syncTools, dispose };
}
