import type { Agent as TaskwireAgent, AgentContext, CoalesceOptions, Message, Struct, Task } from '@taskwire/core';
import { TextArtifact } from '@taskwire/core';
import type { Agent, AgentInputItem, RunStreamEvent, StreamedRunResult } from '@openai/agents';
import { run, RunState } from '@openai/agents';
import { answerApprovals, approvalQuestion, approvalRequest } from './approvals.js';
import type { ProgressData, TurnMeta, UsageRecord } from './shapes.js';
import { dataPart, META_KEY, metaOf, toJson, withMeta } from './shapes.js';

/** Options of {@link openaiAgent}. Every field is optional. */
export interface OpenAIAgentOptions {
  /** The name of the artifact the text streams into (default `response`; its id is the name and the user message's id). */
  readonly artifactName?: string;
  /** How the text deltas become artifact chunks: coalesced by default (`{ minIntervalMs: 50 }`, as in `@taskwire/ai-sdk`); `false`: one chunk per delta. */
  readonly coalesceText?: boolean | CoalesceOptions;
  /** Send tool calls, tool outputs and handoffs as working status updates (default true). */
  readonly progress?: boolean;
  /** The earlier tasks whose last turn the run continues, oldest first (default: the tasks the message references with `referenceTaskIds`). */
  readonly earlierTasks?: (ctx: AgentContext) => Promise<readonly Task[]> | readonly Task[];
  /** The run's context (the SDK's `context`, handed to tools), per run. */
  readonly context?: (ctx: AgentContext) => unknown;
  /** The SDK's `maxTurns` (default: the SDK's). */
  readonly maxTurns?: number;
}

const DEFAULT_COALESCING: CoalesceOptions = { minIntervalMs: 50 };

/** A readable message of an error the SDK threw. */
function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
}

/** The last turn or interruption the adapter stored among `tasks`' agent messages (status messages included). */
function lastMeta(tasks: readonly Task[]): TurnMeta | undefined {
  let found: TurnMeta | undefined;
  for (const task of tasks) {
    for (const message of [...(task.history ?? []), ...(task.status.message ? [task.status.message] : [])]) {
      if (message.role === 'ROLE_AGENT') found = metaOf(message) ?? found;
    }
  }
  return found;
}

/** The user message as an input item: its text parts, and its data parts as JSON text. */
function userItem(message: Message): AgentInputItem {
  const texts = message.parts.flatMap((p) => ('text' in p ? [p.text] : 'data' in p ? [JSON.stringify(p.data)] : []));
  return { role: 'user', content: texts.join('\n') };
}

function progressOf(event: RunStreamEvent): ProgressData | undefined {
  if (event.type !== 'run_item_stream_event') return undefined;
  const item = event.item as any;
  switch (event.name) {
    case 'tool_called':
      return { type: 'tool-call', callId: item.rawItem?.callId, toolName: item.rawItem?.name ?? item.rawItem?.type, arguments: item.rawItem?.arguments };
    case 'tool_output':
      return { type: 'tool-output', callId: item.rawItem?.callId, output: item.output };
    case 'handoff_occurred':
      return { type: 'handoff', from: item.sourceAgent?.name, to: item.targetAgent?.name };
    default:
      return undefined;
  }
}

function usageOf(result: StreamedRunResult<any, any>): UsageRecord | undefined {
  const usage = result.state.usage;
  if (!usage || usage.requests === 0) return undefined;
  return { requests: usage.requests, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens };
}

/**
 * A Taskwire agent that runs an OpenAI Agents SDK agent on each task
 * (`run(agent, input, { stream: true })`):
 * - the input is the history of the last turn (of the task, or of the
 *   earlier tasks, see `earlierTasks`) and the user's message;
 * - text deltas stream as chunks of one artifact (coalesced, as in
 *   `@taskwire/ai-sdk`); the final output is the completion message (text,
 *   or a data part for structured output); tool calls, tool outputs and
 *   handoffs are working status updates with data parts (`ProgressData`);
 * - interruptions (tools with `needsApproval`) end the turn as
 *   input-required, a line and a data part naming each tool and its
 *   arguments, the serialised `RunState` in the message's metadata (in the
 *   task's store: any process serving the agent on that store resumes
 *   it); the next message on the task approves or rejects (see
 *   {@link answerApprovals}) and resumes the run;
 * - a cancel aborts the run (its `signal`) and the task stays canceled;
 *   an error fails the task with its text; the token counts go into the
 *   last message's and event's metadata (`taskwire.openai-agents`).
 */
export function openaiAgent(agent: Agent<any, any>, options: OpenAIAgentOptions = {}): TaskwireAgent {
  const coalesceText = options.coalesceText ?? true;
  const coalesce = coalesceText === true ? DEFAULT_COALESCING : coalesceText;
  const artifactName = options.artifactName ?? 'response';
  return async (ctx) => {
    const earlier = options.earlierTasks ? await options.earlierTasks(ctx) : ctx.referencedTasks;
    const last = lastMeta([...earlier.filter((t) => t.id !== ctx.task.id), ctx.task]);
    let input: AgentInputItem[] | RunState<any, any>;
    if (ctx.isContinuation && last?.kind === 'interruption') {
      input = await RunState.fromString(agent, last.state);
      answerApprovals(input, ctx.message);
    } else input = [...((last?.kind === 'turn' ? last.history : []) as AgentInputItem[]), userItem(ctx.message)];

    const artifact = new TextArtifact(ctx, `${artifactName}-${ctx.message.messageId}`, artifactName, coalesce);
    let result: StreamedRunResult<any, any>;
    try {
      result = await run(agent, input, {
        stream: true,
        signal: ctx.signal,
        ...(options.context && { context: options.context(ctx) }),
        ...(options.maxTurns !== undefined && { maxTurns: options.maxTurns }),
      });
      for await (const event of result) {
        if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') await artifact.push(event.data.delta);
        const progress = options.progress === false ? undefined : progressOf(event);
        if (progress) await ctx.working({ parts: [dataPart(progress)] });
      }
      await result.completed;
      if (result.error) throw result.error;
    } catch (error) {
      if (ctx.signal.aborted) return;
      await artifact.close().catch(() => undefined);
      await ctx.fail(`The agent failed: ${errorText(error)}`);
      return;
    }
    if (ctx.signal.aborted) return;
    const usage = usageOf(result);
    const statusOptions = usage ? { metadata: { [META_KEY]: toJson({ usage }) as Struct } } : undefined;
    await artifact.close(statusOptions?.metadata);
    if (result.interruptions.length > 0) {
      const approvals = result.interruptions.map(approvalRequest);
      const meta = withMeta({ kind: 'interruption', state: result.state.toString(), approvals, ...(usage && { usage }) });
      await ctx.inputRequired({ parts: [{ text: approvalQuestion(approvals) }, ...approvals.map(dataPart)], metadata: meta }, statusOptions);
      return;
    }
    const output = result.finalOutput as unknown;
    const meta = withMeta({ kind: 'turn', history: toJson(result.history) as unknown[], ...(usage && { usage }) });
    const parts = output === undefined ? [] : typeof output === 'string' ? [{ text: output }] : [dataPart(output)];
    await ctx.complete({ parts, metadata: meta }, statusOptions);
  };
}
