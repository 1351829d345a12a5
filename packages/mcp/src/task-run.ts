// A message tool as a task-capable MCP tool (2025-11-25 tasks): a
// task-augmented tools/call returns an MCP task at once and follows the A2A
// task in the background; a plain call runs as before.
import type { CreateTaskRequestHandlerExtra, ToolTaskHandler } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Task as McpTask } from '@modelcontextprotocol/sdk/types.js';
import type { Task } from '@taskwire/core';
import type { AgentLink } from './agent-link.js';
import type { messageToolShape } from './tool-schemas.js';
import type { MessageArgs, TurnContext } from './send-turn.js';
import type { BridgeTaskStore } from './task-store.js';
import { withAgent } from './task-tools.js';

/** How often a client should poll an MCP task of the bridge (ms). */
export const TASK_POLL_INTERVAL_MS = 500;

/** What a task-capable message tool needs besides its arguments. */
export interface TaskToolContext {
  readonly server: McpServer;
  readonly link: AgentLink;
  readonly store: BridgeTaskStore;
  /** Runs one tool call the way a plain call does (same content mapping, progress, elicitation, cancel). */
  readonly run: (args: MessageArgs, ctx: Pick<TurnContext, 'client' | 'extra' | 'onUpdate' | 'onTask'>) => Promise<CallToolResult>;
}

/** The MCP task status of an A2A state while the task runs (`input_required` is set by the elicitation itself). */
function runningStatus(task: Task): McpTask['status'] | undefined {
  return task.status.state === 'TASK_STATE_WORKING' || task.status.state === 'TASK_STATE_SUBMITTED' ? 'working' : undefined;
}

/**
 * The handler of a task-capable message tool. A plain `tools/call` runs to
 * its end inside `createTask` (the SDK then reads its result at once). A
 * task-augmented call gets its MCP task back right away; the A2A task is
 * followed in the background: its working state and progress lines become
 * the MCP task's status and `statusMessage` (with `notifications/tasks/status`),
 * input-required becomes `input_required` while an elicitation waits on
 * `tasks/result`, and how it ended becomes the MCP result (`completed`,
 * `failed` for an `isError` result, `cancelled` when either side cancelled;
 * `tasks/cancel` cancels the A2A task).
 */
export function messageTaskHandler(ctx: TaskToolContext): ToolTaskHandler<typeof messageToolShape> {
  return {
    createTask: async (args, extra) => {
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? null, pollInterval: TASK_POLL_INTERVAL_MS });
      if (ctx.store.isPlain(task.taskId)) {
        const result = await withAgent(ctx.link, (client) => ctx.run(args, { client, extra, onTask: () => {} }));
        await ctx.store.finish(task.taskId, result, result._meta?.state === 'canceled');
        return { task: (await ctx.store.getTask(task.taskId)) ?? task };
      }
      void follow(ctx, args, task.taskId, extra);
      return { task };
    },
    getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
  };
}

/** Follows the A2A task of MCP task `taskId` to its end and stores the result. Never rejects. */
async function follow(ctx: TaskToolContext, args: MessageArgs, taskId: string, extra: CreateTaskRequestHandlerExtra): Promise<void> {
  let status: McpTask['status'] = 'working';
  let line: string | undefined;
  let latest: string | undefined; // the last progress line, also of states that keep the MCP status
  const setStatus = async (next: McpTask['status'], message: string | undefined): Promise<void> => {
    if (next === status && message === line) return;
    status = next;
    line = message;
    await extra.taskStore.updateTaskStatus(taskId, next, message).catch(() => {}); // a task cancelled meanwhile stays cancelled
  };
  const token = extra._meta?.progressToken;
  let sent = 0;
  const taskExtra: CreateTaskRequestHandlerExtra = {
    ...extra,
    signal: ctx.store.signalOf(taskId),
    // The call's response has gone: progress goes out on its own (its token stays valid for the task's life).
    sendNotification: async (notification) => {
      if (token !== undefined && notification.method === 'notifications/progress') {
        await ctx.server.server.notification({ ...notification, params: { ...notification.params, progressToken: token, progress: ++sent } });
      }
    },
    // Elicitations travel with the task: the client receives them through tasks/result.
    sendRequest: async (request, schema, options) => {
      await setStatus('input_required', latest);
      return ctx.server.server.request(request, schema, { ...options, relatedTask: { taskId } });
    },
  };
  const result = await withAgent(ctx.link, (client) =>
    ctx.run(args, {
      client,
      extra: taskExtra,
      onTask: (id) => ctx.store.bind(taskId, id),
      onUpdate: (task, progress) => {
        latest = progress ?? latest;
        const next = runningStatus(task);
        if (next) void setStatus(next, progress);
      },
    }),
  ).catch((error: unknown): CallToolResult => ({ isError: true, content: [{ type: 'text', text: String(error) }] }));
  const changed = await ctx.store.finish(taskId, result, result._meta?.state === 'canceled').catch(() => false);
  if (changed) {
    const task = await ctx.store.getTask(taskId);
    if (task) await ctx.server.server.notification({ method: 'notifications/tasks/status', params: task }).catch(() => {});
  }
}
