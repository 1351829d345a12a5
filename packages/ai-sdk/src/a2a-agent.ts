import type { Agent, AgentContext, CoalesceOptions, Task, TelemetrySetting } from '@taskwire/core';
import type { Agent as AiAgent, ModelMessage } from 'ai';
import { streamText } from 'ai';
import { conversationOf, modelMessages } from './model-messages.js';
import type { AnyResult } from './run-turn.js';
import { errorText, runTurn } from './run-turn.js';

/** A `streamText` configuration without the prompt: the model, tools, instructions, stop conditions ... (the messages come from the task). */
export type StreamTextConfig = Omit<Parameters<typeof streamText>[0], 'prompt' | 'messages' | 'abortSignal'>;

/** What {@link a2aAgent} serves: an AI SDK agent (`ToolLoopAgent`, or any `Agent` of the SDK) or a `streamText` configuration. */
export type AiSdkSource = AiAgent<any, any, any, any> | StreamTextConfig;

/** Options of {@link a2aAgent}. Every field is optional. */
export interface A2AAgentOptions {
  /** The name of the artifact the text streams into (default `response`; its id is the name and the user message's id). */
  readonly artifactName?: string;
  /**
   * How the text deltas become chunks of the artifact. By default (`true`,
   * which is `{ minIntervalMs: 50 }`) they are coalesced (core's
   * `ArtifactOptions.coalesce`): the first goes out at once, and the ones
   * that come while a commit is in flight, or within `minIntervalMs` of the
   * last commit, go out together in the next chunk, so an answer costs at
   * most about 20 commits a second whatever the token rate (or one per
   * store round trip, with `{ minIntervalMs: 0 }`). `false`: one chunk per
   * delta, each committed before the next delta is taken.
   */
  readonly coalesceText?: boolean | CoalesceOptions;
  /**
   * Opt in to answering with a bare Message (no task) when a turn is short
   * and calls no tool: the text is held back (not streamed) until it grows
   * past `maxChars` (default 1000) or a tool or reasoning shows up, when it
   * streams as usual. `true` is `{ maxChars: 1000 }`.
   */
  readonly replyWithMessage?: boolean | { readonly maxChars?: number };
  /**
   * The earlier tasks of the conversation whose messages come before the
   * task's own, oldest first (default: the tasks the message references
   * with `referenceTaskIds`). `contextTasks(store)` carries a whole
   * `contextId`: every earlier task of the conversation.
   */
  readonly earlierTasks?: (ctx: AgentContext) => Promise<readonly Task[]> | readonly Task[];
  /** The call options of an agent that declares a `callOptionsSchema`, per run. */
  readonly callOptions?: (ctx: AgentContext) => unknown;
  /** Send reasoning, tool calls and tool results as status updates (default true). */
  readonly progress?: boolean;
  /** Where the run's token counts go as span attributes (default: the registered OpenTelemetry SDK, if any; `false`: nowhere). */
  readonly telemetry?: TelemetrySetting;
}

/** The adapter's default pacing of text chunks: at most one commit every 50 ms per answer. */
const DEFAULT_COALESCING: CoalesceOptions = { minIntervalMs: 50 };

type Start = (messages: ModelMessage[], abortSignal: AbortSignal, ctx: AgentContext) => PromiseLike<AnyResult>;

function isAgent(source: AiSdkSource): source is AiAgent {
  return typeof (source as AiAgent).stream === 'function' && typeof (source as AiAgent).version === 'string';
}

function starter(source: AiSdkSource, options: A2AAgentOptions): Start {
  if (isAgent(source)) {
    return (messages, abortSignal, ctx) =>
      source.stream({ messages, abortSignal, ...(options.callOptions && { options: options.callOptions(ctx) }) } as Parameters<AiAgent['stream']>[0]);
  }
  // The task reports the errors (it fails, saying why): the SDK's default onError would also print them.
  const quiet = { onError: () => undefined };
  return async (messages, abortSignal) => streamText({ ...quiet, ...(source as StreamTextConfig), messages, abortSignal } as Parameters<typeof streamText>[0]);
}

/**
 * A Taskwire {@link Agent} that runs an AI SDK agent (or `streamText`
 * configuration) on each task:
 * - the task's history (after the earlier tasks, see `earlierTasks`)
 *   becomes the model's messages: text as text, files (`raw`, `url`) as
 *   file parts, `data` as JSON text; earlier turns replay as the SDK
 *   returned them, tool calls included;
 * - text deltas stream as chunks of one artifact (`append`, `lastChunk`),
 *   coalesced under load (see `coalesceText`); the final text is the
 *   completion message (or a bare message, see `replyWithMessage`);
 * - reasoning, tool calls and tool results are status updates with data
 *   parts (see `ProgressData`);
 * - a tool call that needs the user's approval (the SDK's `toolApproval`)
 *   puts the task in input-required with the call in a data part; the
 *   next message (a `tool-approval-response` data part, or the text
 *   `approve` / `deny`) continues the loop, rebuilt from the stored
 *   history alone (any replica may run it);
 * - a cancel aborts the SDK's call (the signal reaches the provider and
 *   the tools) and the task stays canceled; a model or tool error fails the
 *   task with a message saying which; the token counts go into the last
 *   message's and event's metadata (`taskwire.ai-sdk.usage`) and onto the
 *   run's span.
 */
export function a2aAgent(source: AiSdkSource, options: A2AAgentOptions = {}): Agent {
  const start = starter(source, options);
  const reply = options.replyWithMessage;
  const replyMaxChars = reply === true ? 1000 : reply ? (reply.maxChars ?? 1000) : undefined;
  const coalesceText = options.coalesceText ?? true;
  const coalesce = coalesceText === true ? DEFAULT_COALESCING : coalesceText;
  return async (ctx) => {
    const earlier = options.earlierTasks ? await options.earlierTasks(ctx) : ctx.referencedTasks;
    const history = conversationOf(earlier, ctx.task);
    if (!history.some((m) => m.messageId === ctx.message.messageId)) history.push(ctx.message);
    const own = new AbortController();
    const signal = AbortSignal.any([ctx.signal, own.signal]);
    let result;
    try {
      result = await start(modelMessages(history), signal, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return;
      await ctx.fail(`The model failed: ${errorText(error)}`);
      return;
    }
    await runTurn(ctx, result, {
      artifactName: options.artifactName ?? 'response',
      coalesce,
      replyMaxChars,
      progress: options.progress ?? true,
      telemetry: options.telemetry,
      abort: (reason) => own.abort(reason),
    });
  };
}
