import type { Agent, AgentContext, CoalesceOptions, Message, Part, Say } from '@taskwire/core';
import { TextArtifact, textOf } from '@taskwire/core';
import { Command } from '@langchain/langgraph';
import { HumanMessage } from '@langchain/core/messages';

/**
 * What {@link langGraphAgent} serves: a compiled LangGraph graph (what
 * `StateGraph.compile()` or `createReactAgent()` return), or anything with
 * its `stream(input, options)`.
 */
export interface StreamingGraph {
  stream(input: any, options?: any): Promise<AsyncIterable<any>>;
}

/** Options of {@link langGraphAgent}. Every field is optional. */
export interface LangGraphAgentOptions {
  /** The name of the artifact the text streams into (default `response`; its id is the name and the user message's id). */
  readonly artifactName?: string;
  /**
   * How the model's text deltas become chunks of the artifact: coalesced by
   * default (`true`, which is `{ minIntervalMs: 50 }`, as in
   * `@taskwire/ai-sdk`); `false`: one chunk per delta, each committed
   * before the next is taken.
   */
  readonly coalesceText?: boolean | CoalesceOptions;
  /** Send each node's update as a working status update naming the node (default true). */
  readonly progress?: boolean;
  /**
   * The graph's input for a user message (default: `{ messages: [new
   * HumanMessage(text)] }`, for graphs on `MessagesAnnotation` or an agent
   * of `createReactAgent`).
   */
  readonly input?: (ctx: AgentContext) => unknown;
  /** More of the run's config (`configurable` values besides `thread_id`, `recursionLimit`, ...), per run. */
  readonly config?: (ctx: AgentContext) => Record<string, unknown>;
}

/** A status update's data part while the graph runs: the node that finished, and the state keys it updated. */
export interface NodeUpdateData {
  readonly type: 'node-update';
  readonly node: string;
  readonly keys: readonly string[];
}

/** An interrupt of the graph (`interrupt(value)`) as the input-required message's data part carries it. */
export interface InterruptData {
  readonly type: 'interrupt';
  readonly id?: string;
  readonly value: unknown;
}

const DEFAULT_COALESCING: CoalesceOptions = { minIntervalMs: 50 };

/** `value` as plain JSON (class instances become their JSON form). */
function json(value: unknown): {} | null {
  return JSON.parse(JSON.stringify(value) ?? 'null') as {} | null;
}

/** A readable message of an error the graph threw. */
function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
}

/** The text of a LangChain message (chunk): its string content, or its text blocks joined. */
function messageText(message: { content?: unknown }): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block: { type?: string; text?: unknown }) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
}

/** The id and text of the last AI message of a node's update (`{ messages: [...] }`), if it has one. */
function lastAiMessage(update: unknown): { id?: string; text: string } | undefined {
  const messages = (update as { messages?: unknown } | null)?.messages;
  const list = (Array.isArray(messages) ? messages : [messages]) as ({ type?: string; id?: string; content?: unknown } | undefined)[];
  const message = [...list].reverse().find((m) => m?.type === 'ai');
  return message && { id: message.id, text: messageText(message) };
}

/** What the user's message resumes an interrupted graph with: its first data part's value, else its text. */
function resumeValue(message: Message): unknown {
  const data = message.parts.find((p): p is Extract<Part, { data: unknown }> => 'data' in p);
  return data ? data.data : textOf(message);
}

/** The input-required message of the graph's interrupts: a string value as text, anything else as a data part. */
function interruptMessage(interrupts: readonly { id?: string; value: unknown }[]): Say {
  const parts: Part[] = interrupts.map((i) =>
    typeof i.value === 'string' ? { text: i.value } : { data: json({ type: 'interrupt', ...(i.id !== undefined && { id: i.id }), value: i.value } satisfies InterruptData), mediaType: 'application/json' },
  );
  return { parts };
}

/**
 * A Taskwire agent that runs a compiled LangGraph graph on each task:
 * - the A2A `contextId` is the graph's `thread_id`, so the graph's
 *   checkpointer keeps the conversation (a PostgreSQL checkpointer on the
 *   cluster's database lets any replica continue it); a graph without a
 *   checkpointer starts afresh on each message;
 * - the user's text goes in as a `HumanMessage` (see `input`);
 * - the AI messages' text streams as chunks of one artifact (coalesced, as
 *   in `@taskwire/ai-sdk`), and the last AI message's text is the
 *   completion message; each node's update is a working status update with
 *   a `node-update` data part;
 * - `interrupt(value)` ends the turn as input-required with the value (a
 *   string as text, anything else as an `interrupt` data part); the next
 *   message on the task resumes the graph with `new Command({ resume })`:
 *   its first data part's value, else its text;
 * - a cancel aborts the run (the signal reaches the graph's nodes and
 *   models) and the task stays canceled; an error fails the task with its
 *   message.
 */
export function langGraphAgent(graph: StreamingGraph, options: LangGraphAgentOptions = {}): Agent {
  const coalesceText = options.coalesceText ?? true;
  const coalesce = coalesceText === true ? DEFAULT_COALESCING : coalesceText;
  const artifactName = options.artifactName ?? 'response';
  return async (ctx: AgentContext): Promise<void> => {
    const input = ctx.isContinuation
      ? new Command({ resume: resumeValue(ctx.message) })
      : options.input
        ? options.input(ctx)
        : { messages: [new HumanMessage(ctx.text)] };
    const extra = options.config?.(ctx) ?? {};
    const config = {
      ...extra,
      configurable: { ...(extra.configurable as Record<string, unknown> | undefined), thread_id: ctx.task.contextId },
      streamMode: ['messages', 'updates'],
      signal: ctx.signal,
    };
    const artifact = new TextArtifact(ctx, `${artifactName}-${ctx.message.messageId}`, artifactName, coalesce);
    const interrupts: { id?: string; value: unknown }[] = [];
    let lastId: string | undefined;
    let lastText = '';
    let final: { id?: string; text: string } | undefined;
    try {
      for await (const [mode, chunk] of await graph.stream(input, config)) {
        if (mode === 'messages') {
          const [message] = chunk as [{ type?: string; id?: string; content?: unknown }];
          if (message?.type !== 'ai') continue;
          const text = messageText(message);
          if (message.id !== lastId) {
            lastId = message.id;
            lastText = '';
          }
          lastText += text;
          await artifact.push(text);
        } else if (mode === 'updates') {
          for (const [node, update] of Object.entries(chunk as Record<string, unknown>)) {
            if (node === '__interrupt__') {
              interrupts.push(...(update as { id?: string; value: unknown }[]));
              continue;
            }
            final = lastAiMessage(update) ?? final;
            if (options.progress !== false) {
              const data: NodeUpdateData = { type: 'node-update', node, keys: update && typeof update === 'object' ? Object.keys(update) : [] };
              await ctx.working({ parts: [{ data: json(data), mediaType: 'application/json' }] });
            }
          }
        }
      }
    } catch (error) {
      if (ctx.signal.aborted) return;
      await artifact.close().catch(() => undefined);
      await ctx.fail(`The graph failed: ${errorText(error)}`);
      return;
    }
    if (ctx.signal.aborted) return;
    // The `messages` stream can end before a model's last tokens reach it (a model that does not await its
    // token callbacks, as LangChain's FakeListChatModel): the node's update has the whole message, so its rest goes out.
    if (final && final.id === lastId && final.text.length > lastText.length && final.text.startsWith(lastText)) {
      await artifact.push(final.text.slice(lastText.length));
      lastText = final.text;
    }
    await artifact.close();
    if (interrupts.length > 0) {
      await ctx.inputRequired(interruptMessage(interrupts));
      return;
    }
    await ctx.complete(lastText ? { parts: [{ text: lastText }] } : undefined);
  };
}
