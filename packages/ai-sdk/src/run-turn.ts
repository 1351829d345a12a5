import type { AgentContext, CoalesceOptions, Struct, TelemetrySetting } from '@taskwire/core';
import { TextArtifact } from '@taskwire/core';
import type { ModelMessage, StreamTextResult, TextStreamPart, ToolSet } from 'ai';
import { approvalQuestion } from './approvals.js';
import type { ApprovalRequestData, ProgressData, UsageRecord } from './shapes.js';
import { dataPart, messageMeta, META_KEY, toJson } from './shapes.js';
import { recordUsageOnSpan, usageRecord } from './usage.js';

/** What one turn needs besides the agent context and the SDK's result. */
export interface TurnOptions {
  readonly artifactName: string;
  /** How the text deltas are coalesced into chunks (`false`: each committed before the next is taken). */
  readonly coalesce: false | CoalesceOptions;
  /** Buffer the text and answer with a bare message when the turn is short and used no tools (at most this many characters); undefined: always stream an artifact. */
  readonly replyMaxChars: number | undefined;
  readonly progress: boolean;
  readonly telemetry: TelemetrySetting | undefined;
  /** Aborts the SDK's call (the turn aborts it when a tool fails). */
  readonly abort: (reason: unknown) => void;
}

/** A readable message of an error the SDK reported. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** A `streamText` result of any tools, context and output. */
export type AnyResult = StreamTextResult<ToolSet, any, any>;

/**
 * Plays one turn of the AI SDK (a `streamText` result) onto the task: text
 * deltas as chunks of one artifact, reasoning and tool activity as status
 * updates with data parts, then the end of the turn: input-required with
 * the calls waiting for approval, a failure (a model or tool error), or
 * completion with the final text (or, when allowed, a bare message). A
 * cancel (the context's signal) ends it quietly: the service has canceled
 * the task already.
 */
export async function runTurn(ctx: AgentContext, result: AnyResult, options: TurnOptions): Promise<void> {
  const artifact = new TextArtifact(ctx, `${options.artifactName}-${ctx.message.messageId}`, options.artifactName, options.coalesce);
  let streaming = options.replyMaxChars === undefined;
  let buffered = '';
  let failure: string | undefined;
  let usage: UsageRecord | undefined;
  const approvals: ApprovalRequestData[] = [];
  const reasoning = new Map<string, string>();

  const startStreaming = async () => {
    if (streaming) return;
    streaming = true;
    await artifact.push(buffered);
    buffered = '';
  };
  const progress = async (data: ProgressData) => {
    await startStreaming();
    if (options.progress) await ctx.working({ parts: [dataPart(data)], metadata: messageMeta('progress') });
  };

  for await (const part of result.fullStream as AsyncIterable<TextStreamPart<ToolSet>>) {
    switch (part.type) {
      case 'text-delta':
        if (streaming) await artifact.push(part.text);
        else {
          buffered += part.text;
          if (buffered.length > options.replyMaxChars!) await startStreaming();
        }
        break;
      case 'reasoning-delta':
        reasoning.set(part.id, (reasoning.get(part.id) ?? '') + part.text);
        break;
      case 'reasoning-end': {
        const text = reasoning.get(part.id);
        reasoning.delete(part.id);
        if (text) await progress({ type: 'reasoning', text });
        break;
      }
      case 'tool-call':
        await progress({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case 'tool-result':
        await progress({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: part.output,
          ...(part.preliminary && { preliminary: true }),
        });
        break;
      case 'tool-output-denied':
        await progress({ type: 'tool-output-denied', toolCallId: part.toolCallId, toolName: part.toolName });
        break;
      case 'tool-approval-request':
        if (part.isAutomatic) break;
        await startStreaming();
        approvals.push({
          type: 'tool-approval-request',
          approvalId: part.approvalId,
          toolCallId: part.toolCall.toolCallId,
          toolName: part.toolCall.toolName,
          input: part.toolCall.input,
          ...(part.reason !== undefined && { reason: part.reason }),
        });
        break;
      case 'tool-error':
        failure = `The tool "${part.toolName}" failed: ${errorText(part.error)}`;
        options.abort(new Error(failure));
        break;
      case 'error':
        failure ??= `The model failed: ${errorText(part.error)}`;
        break;
      case 'finish':
        usage = usageRecord(part.totalUsage);
        break;
      default:
        break;
    }
    if (failure !== undefined) break;
  }

  if (ctx.signal.aborted) return;
  if (failure !== undefined) {
    await artifact.close();
    await ctx.fail(failure);
    return;
  }
  const messages = toJson(await result.responseMessages) as ModelMessage[];
  recordUsageOnSpan(options.telemetry, usage, (await result.response).modelId);
  const usageMeta: Struct | undefined = usage && { [META_KEY]: { usage } as unknown as Struct };
  const statusOptions = usageMeta ? { metadata: usageMeta } : undefined;
  if (approvals.length > 0) {
    await artifact.close();
    const parts = [{ text: approvalQuestion(approvals) }, ...approvals.map(dataPart)];
    await ctx.inputRequired({ parts, metadata: messageMeta('turn', { messages, approvals, ...(usage && { usage }) }) }, statusOptions);
    return;
  }
  const turn = messageMeta('turn', { messages, ...(usage && { usage }) });
  if (!streaming) {
    await ctx.reply({ parts: [{ text: buffered }], metadata: turn });
    return;
  }
  await artifact.close(usageMeta);
  await ctx.complete({ parts: [{ text: await result.text }], metadata: turn }, statusOptions);
}
