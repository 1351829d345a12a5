// One tool call of a message tool: send, follow the task (progress,
// cancellation, timeout), answer input-required by elicitation when the
// client can, and map how it ended to a tool result.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { A2AClient } from '@taskwire/client';
import { applyResponse, stripControls, untilSettled } from '@taskwire/client';
import type { Message, Part, StreamResponse, Task } from '@taskwire/core';
import { isSettled } from '@taskwire/core';
import { errorResult, messageResult, metaOfTask, stateName, taskResult, textOf } from './content.js';
import { describeFailure } from './failure.js';
import type { TaskScope } from './task-scope.js';
import { notYours } from './task-scope.js';

/** The arguments of a message tool (see `messageToolShape`). */
export interface MessageArgs {
  readonly message: string;
  readonly files?: readonly { url?: string | undefined; data?: string | undefined; mediaType?: string | undefined; name?: string | undefined }[] | undefined;
  readonly data?: Record<string, unknown> | undefined;
  readonly taskId?: string | undefined;
  readonly contextId?: string | undefined;
}

/** What a message tool call needs besides its arguments. */
export interface TurnContext {
  readonly client: A2AClient;
  /** The tool's name, for "call <tool> again with taskId". */
  readonly toolName: string;
  /** The agent, as named in error messages: its configured URL. */
  readonly agent: string;
  /** The name the user configured the agent under, for elicitations (default: `agent`). */
  readonly agentName?: string | undefined;
  /** Gives up waiting after this many ms (the task goes on); 0 or undefined: no limit. */
  readonly timeoutMs?: number | undefined;
  /** Whether the client declared elicitation (then input-required is asked there). */
  readonly canElicit: boolean;
  /** Called with each task id the call touches. */
  readonly onTask: (taskId: string) => void;
  /** Called with the task after each event of the stream, and the event's progress line (an MCP task follows its state). */
  readonly onUpdate?: ((task: Task, line: string | undefined) => void) | undefined;
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  /** The tasks and contexts this session may use (Streamable HTTP); undefined: all of them (stdio, your own server). */
  readonly scope?: TaskScope | undefined;
}

/** Elicitation rounds one call may take before it hands the question to the model. */
const MAX_ELICITATIONS = 10;

/** The user message the arguments describe; throws a readable error for a file with neither url nor data. */
export function userMessage(args: MessageArgs): Message {
  const files: Part[] = (args.files ?? []).map((file, index) => {
    const common = { ...(file.mediaType && { mediaType: file.mediaType }), ...(file.name && { filename: file.name }) };
    if (file.url && !file.data) return { url: file.url, ...common };
    if (file.data && !file.url) return { raw: file.data, ...common };
    throw new Error(`files[${index}] needs exactly one of url or data (base64)`);
  });
  const parts: Part[] = [{ text: args.message }, ...files, ...(args.data ? [{ data: args.data }] : [])];
  return {
    messageId: globalThis.crypto.randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(args.taskId && { taskId: args.taskId }),
    ...(args.contextId && { contextId: args.contextId }),
  };
}

/** The task after one stream response, also when the stream starts with an update instead of a task snapshot. */
function track(task: Task | undefined, response: StreamResponse): Task | undefined {
  if (task || 'task' in response) return applyResponse(task, response);
  if ('statusUpdate' in response) return { id: response.statusUpdate.taskId, contextId: response.statusUpdate.contextId, status: response.statusUpdate.status };
  if ('artifactUpdate' in response) {
    const { taskId, contextId, artifact } = response.artifactUpdate;
    return { id: taskId, contextId, status: { state: 'TASK_STATE_WORKING' }, artifacts: [artifact] };
  }
  return undefined;
}

/** A progress line for an event: the state, `current/total` when the agent says (`metadata.progress`), and its text; or the artifact it brings. */
export function progressMessage(response: StreamResponse): string | undefined {
  if ('artifactUpdate' in response) return `artifact ${response.artifactUpdate.artifact.name ?? response.artifactUpdate.artifact.artifactId}`;
  if ('message' in response) return undefined;
  const { status, metadata } = 'task' in response ? response.task : response.statusUpdate;
  const progress = metadata?.progress as { current?: unknown; total?: unknown } | undefined;
  const count = typeof progress?.current === 'number' && typeof progress.total === 'number' ? ` ${progress.current}/${progress.total}` : '';
  const text = textOf(status.message);
  return `${stateName(status.state)}${count}${text ? `: ${text}` : ''}`;
}

/** Sends `message` and follows its task until it settles (or `signal` aborts); a direct message answer ends it too. */
async function oneTurn(ctx: TurnContext, message: Message, signal: AbortSignal, progress: () => number): Promise<{ task?: Task; message?: Message }> {
  const token = ctx.extra._meta?.progressToken;
  let task: Task | undefined;
  for await (const event of untilSettled(ctx.client.sendStreamingMessage({ message }, { signal }))) {
    const response = event.response;
    if ('message' in response) return { message: response.message };
    const before = task?.id;
    task = track(task, response) ?? task;
    if (task && task.id !== before) {
      ctx.scope?.claim(task.id, task.contextId);
      ctx.onTask(task.id);
    }
    const line = progressMessage(response);
    if (task) ctx.onUpdate?.(task, line);
    if (token !== undefined && line !== undefined) {
      // Awaited, so that every notification goes out before the result (the client drops later ones).
      await ctx.extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: progress(), message: line } }).catch(() => {});
    }
  }
  // The stream ended before the task settled (an agent that closes streams early): wait for it.
  if (task && !isSettled(task.status.state)) task = await ctx.client.waitForTask(task.id, { signal });
  return task ? { task } : {};
}

/**
 * What an elicitation says: that a remote A2A agent asks, named as the user
 * configured it (a name given to the bridge, and its configured URL), then
 * the agent's question as its own quoted words (the caller strips it of
 * control, bidi and zero-width characters). The agent's card never names it
 * here, so it cannot pass for the MCP client or another tool.
 */
export function elicitationMessage(ctx: Pick<TurnContext, 'agent' | 'agentName'>, question: string): string {
  const who = ctx.agentName && ctx.agentName !== ctx.agent ? `"${ctx.agentName}" (${ctx.agent})` : ctx.agent;
  return `A remote A2A agent, ${who}, is asking (its words, not this application's):\n${question}`;
}

/**
 * Asks the client's user the agent's question; resolves the answer, or
 * undefined when declined, canceled, empty or when the elicitation failed
 * (then the model gets the question). Rejects only when `signal` aborted.
 */
async function elicit(ctx: TurnContext, task: Task, signal: AbortSignal): Promise<string | undefined> {
  // Shown to a person: without the control, bidi and zero-width characters that could hide or reorder what it says.
  const question = stripControls(textOf(task.status.message)) || 'The agent needs more input.';
  const answer = await ctx.extra.sendRequest(
    {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: elicitationMessage(ctx, question),
        requestedSchema: { type: 'object', properties: { answer: { type: 'string', title: 'Answer', description: question } }, required: ['answer'] },
      },
    },
    ElicitResultSchema,
    { signal },
  ).catch((error: unknown) => {
    if (signal.aborted) throw error;
    return undefined;
  });
  const value = answer?.action === 'accept' ? answer.content?.answer : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The tool result of a task that has settled (or is still running when the wait gave up). */
export function settledResult(task: Task, toolName: string): CallToolResult {
  const said = textOf(task.status.message);
  const again = `call ${toolName} again with taskId "${task.id}"`;
  switch (task.status.state) {
    case 'TASK_STATE_COMPLETED':
      return taskResult(task);
    case 'TASK_STATE_INPUT_REQUIRED':
      return taskResult(task, `The agent asks: ${said ? JSON.stringify(said) : 'for more input'}. To answer, ${again} and the answer as message.`);
    case 'TASK_STATE_AUTH_REQUIRED':
      return taskResult(task, `The agent needs authorization${said ? `: ${said}` : ''}. Give the bridge credentials (--token, --api-key or --client-id) or complete the agent's sign-in, then ${again}.`, true);
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
      return taskResult(task, `The agent ${stateName(task.status.state) === 'failed' ? 'failed the task' : 'rejected the task'}${said ? `: ${said}` : '.'}`, true);
    case 'TASK_STATE_CANCELED':
      return taskResult(task, 'The task was canceled.', true);
    default:
      return taskResult(task, `The task has not finished; check on it with get_task (taskId "${task.id}").`, true);
  }
}

/**
 * Runs one call of a message tool. Never throws: every failure (bad file
 * argument, unreachable agent, A2A error, timeout) is an `isError` result.
 * When the MCP request is canceled, the A2A task is canceled too.
 */
export async function runTurn(args: MessageArgs, ctx: TurnContext): Promise<CallToolResult> {
  let message: Message;
  try {
    message = userMessage(args);
  } catch (error) {
    return errorResult((error as Error).message);
  }
  if (args.taskId !== undefined && ctx.scope && !ctx.scope.mayUseTask(args.taskId)) return errorResult(notYours('task', args.taskId));
  if (args.contextId !== undefined && ctx.scope && !ctx.scope.mayUseContext(args.contextId)) return errorResult(notYours('context', args.contextId));
  const timeout = ctx.timeoutMs ? AbortSignal.timeout(ctx.timeoutMs) : undefined;
  const signal = timeout ? AbortSignal.any([ctx.extra.signal, timeout]) : ctx.extra.signal;
  let sent = 0;
  const progress = () => ++sent;
  let task: Task | undefined;
  let seen = args.taskId; // the task this call works on, as soon as the agent names it
  const tracked: TurnContext = { ...ctx, onTask: (id) => ((seen = id), ctx.onTask(id)) };
  try {
    for (let round = 0; ; round++) {
      const outcome = await oneTurn(tracked, message, signal, progress);
      if (outcome.message) return messageResult(outcome.message);
      if (!outcome.task) return errorResult(`The agent at ${ctx.agent} ended the stream without a task or a message.`);
      task = outcome.task;
      if (task.status.state !== 'TASK_STATE_INPUT_REQUIRED' || !ctx.canElicit || round >= MAX_ELICITATIONS) break;
      const answer = await elicit(ctx, task, signal);
      if (answer === undefined) break;
      message = userMessage({ message: answer, taskId: task.id, contextId: task.contextId });
    }
    return settledResult(task, ctx.toolName);
  } catch (error) {
    if (ctx.extra.signal.aborted) {
      if (seen) await cancelQuietly(ctx.client, seen);
      return errorResult('The call was canceled; the A2A task was canceled too.', task && metaOfTask(task));
    }
    if (timeout?.aborted) {
      const running = seen ? ` Task ${seen} goes on; check on it with get_task.` : '';
      return errorResult(`The agent did not finish within ${ctx.timeoutMs} ms.${running}`, seen ? { taskId: seen } : undefined);
    }
    return errorResult(describeFailure(error, ctx.agent), task && metaOfTask(task));
  }
}

/** Cancels task `id`, ignoring failures (it may have ended meanwhile); gives up after 5 s. */
async function cancelQuietly(client: A2AClient, id: string): Promise<void> {
  await client.cancelTask({ id }, { timeoutMs: 5_000 }).catch(() => {});
}
