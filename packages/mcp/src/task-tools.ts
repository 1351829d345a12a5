// get_task, list_tasks and cancel_task: the A2A task operations as tools.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { A2AClient } from '@taskwire/client';
import type { TaskState } from '@taskwire/core';
import type { AgentLink } from './agent-link.js';
import { errorResult, stateName, taskResult, textOf } from './content.js';
import { describeFailure } from './failure.js';
import type { TaskScope } from './task-scope.js';
import { notYours } from './task-scope.js';
import { cancelTaskShape, getTaskShape, listTasksShape } from './tool-schemas.js';

/** What the task tools share with the rest of the bridge. */
export interface TaskToolsContext {
  readonly link: AgentLink;
  readonly prefix: string;
  /** Called with each task id a tool touches. */
  readonly onTask: (taskId: string) => void;
  /** The tasks this session may use; undefined: all of them. */
  readonly scope?: TaskScope | undefined;
}

/** Runs `call` with the agent's client; a failure is an `isError` result that says why. */
export async function withAgent(link: AgentLink, call: (client: A2AClient) => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await call(await link.client());
  } catch (error) {
    return errorResult(describeFailure(error, link.label));
  }
}

/** Registers `get_task`, `list_tasks` and `cancel_task` (with the prefix) on `server`. */
export function registerTaskTools(server: McpServer, ctx: TaskToolsContext): void {
  const { link, prefix, onTask, scope } = ctx;
  const refused = (taskId: string): CallToolResult | undefined => (scope && !scope.mayUseTask(taskId) ? errorResult(notYours('task', taskId)) : undefined);
  server.registerTool(
    `${prefix}get_task`,
    { description: 'Shows an A2A task of the agent: its state, its results so far and the question it asks, if any.', inputSchema: getTaskShape, annotations: { readOnlyHint: true } },
    ({ taskId, historyLength }, extra) =>
      refused(taskId) ??
      withAgent(link, async (client) => {
        const task = await client.getTask({ id: taskId, ...(historyLength !== undefined && { historyLength }) }, { signal: extra.signal });
        onTask(task.id);
        return taskResult(task);
      }),
  );
  server.registerTool(
    `${prefix}list_tasks`,
    { description: "Lists the agent's A2A tasks, newest first (filter by contextId or state); over Streamable HTTP, only those this session may use.", inputSchema: listTasksShape, annotations: { readOnlyHint: true } },
    ({ contextId, state, pageSize, pageToken }, extra) =>
      (contextId && scope && !scope.mayUseContext(contextId) ? errorResult(notYours('context', contextId)) : undefined) ??
      withAgent(link, async (client) => {
        const status = state && (`TASK_STATE_${state.toUpperCase().replaceAll('-', '_')}` as TaskState);
        const page = await client.listTasks({ ...(contextId && { contextId }), ...(status && { status }), ...(pageSize && { pageSize }), ...(pageToken && { pageToken }) }, { signal: extra.signal });
        const tasks = page.tasks.filter((t) => !scope || scope.mayUseTask(t.id)).map((t) => ({ taskId: t.id, contextId: t.contextId, state: stateName(t.status.state), ...(textOf(t.status.message) && { message: textOf(t.status.message) }) }));
        const lines = tasks.map((t) => `${t.taskId} (context ${t.contextId}): ${t.state}${t.message ? `: ${t.message}` : ''}`);
        const more = page.nextPageToken ? `\nMore tasks: call ${prefix}list_tasks with pageToken "${page.nextPageToken}".` : '';
        return {
          content: [{ type: 'text', text: `${lines.length ? lines.join('\n') : 'No tasks.'}${more}` }],
          structuredContent: { tasks, nextPageToken: page.nextPageToken },
        };
      }),
  );
  server.registerTool(
    `${prefix}cancel_task`,
    { description: 'Cancels an A2A task of the agent that has not finished.', inputSchema: cancelTaskShape, annotations: { destructiveHint: true } },
    ({ taskId }, extra) =>
      refused(taskId) ??
      withAgent(link, async (client) => {
        const task = await client.cancelTask({ id: taskId }, { signal: extra.signal });
        onTask(task.id);
        return taskResult(task);
      }),
  );
}
