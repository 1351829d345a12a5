import type { StreamEvent, TaskState } from '@taskwire/core';
import { A2AError, stateToV1 } from '@taskwire/core';
import type { A2AClient } from '../client.js';
import { untilSettled } from '../until-settled.js';
import type { ConversationView } from '../view/reduce.js';
import { EMPTY_VIEW, reduceView } from '../view/reduce.js';
import { UsageError } from './args.js';
import type { CliArgs } from './args.js';
import { artifactBlock, cardBlock, exitCodeOf, messageText, stateLabel, statusLine, taskBlock, taskRow } from './format.js';
import type { CliState } from './state-file.js';

/** What a command works with. */
export interface CommandContext {
  readonly args: CliArgs;
  readonly state: CliState;
  /** Prints to standard output. */
  print(text: string): void;
  readonly interactive: boolean;
  readonly signal: AbortSignal | undefined;
  connect(url: string): Promise<A2AClient>;
  /** Remembers the state for the next run. */
  save(state: CliState): Promise<void>;
  /** The agent card of a URL (for `card`). */
  card(url: string): Promise<unknown>;
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

function needUrl(ctx: CommandContext): string {
  const [url] = ctx.args.positionals;
  if (!url || !URL_LIKE.test(url)) throw new UsageError(`${ctx.args.command} needs the agent's URL first, e.g. taskwire ${ctx.args.command} http://127.0.0.1:8080 ...`);
  return url;
}

/** `[url] <rest...>`: the URL when given, else --url, TASKWIRE_URL or the last agent used. */
function urlAndRest(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): { url: string; rest: readonly string[] } {
  const [first, ...others] = ctx.args.positionals;
  if (first && URL_LIKE.test(first)) return { url: first, rest: others };
  const url = ctx.args.url ?? env.TASKWIRE_URL ?? ctx.state.lastUrl;
  if (!url) throw new UsageError(`${ctx.args.command} needs the agent's URL: give it first, or set --url or TASKWIRE_URL`);
  return { url, rest: ctx.args.positionals };
}

function needTaskId(ctx: CommandContext, rest: readonly string[]): string {
  if (rest.length !== 1) throw new UsageError(`${ctx.args.command} needs one task id, e.g. taskwire ${ctx.args.command} <url> <taskId>`);
  return rest[0]!;
}

function remember(ctx: CommandContext, url: string, conversation?: CliState['conversations'][string]): Promise<void> {
  const conversations = conversation ? { ...ctx.state.conversations, [url]: conversation } : ctx.state.conversations;
  return ctx.save({ lastUrl: url, conversations });
}

function textOf(ctx: CommandContext): string {
  const text = ctx.args.positionals.slice(1).join(' ').trim();
  if (!text) throw new UsageError(`${ctx.args.command} needs a message, e.g. taskwire ${ctx.args.command} <url> "hello"`);
  return text;
}

/** `send <url> <text...>`: one turn of the saved conversation; prints the agent's words and artifacts. */
export async function send(ctx: CommandContext): Promise<number> {
  const url = needUrl(ctx);
  const text = textOf(ctx);
  const client = await ctx.connect(url);
  try {
    const convo = client.conversation(ctx.args.fresh ? undefined : ctx.state.conversations[url]);
    const reply = await convo.send(text, { signal: ctx.signal, timeoutMs: ctx.args.timeoutMs });
    await remember(ctx, url, convo.toJSON());
    if (ctx.args.json) ctx.print(`${JSON.stringify({ task: reply.task, message: reply.message, text: reply.text, conversation: convo.toJSON() })}\n`);
    else {
      if (reply.text) ctx.print(`${reply.text}\n`);
      for (const a of reply.task?.artifacts ?? []) ctx.print(artifactBlock(a));
      if (reply.task) ctx.print(`(task ${reply.task.id}: ${stateLabel(reply.task.status.state)})\n`);
    }
    return exitCodeOf(reply.task?.status.state);
  } finally {
    await client.close();
  }
}

/** Prints one stream event for people: state changes, agent messages, artifact chunks as they come. */
function printEvent(ctx: CommandContext, before: ConversationView, after: ConversationView, event: StreamEvent): void {
  const r = event.response;
  if ('artifactUpdate' in r) {
    const { artifact, append } = r.artifactUpdate;
    if (!append) ctx.print(`--- ${artifact.name ?? artifact.artifactId} ---\n`);
    ctx.print(messageText(artifact));
    return;
  }
  const said = 'message' in r ? r.message : 'statusUpdate' in r ? r.statusUpdate.status.message : undefined;
  if (said) ctx.print(`${messageText(said)}\n`);
  if (after.state !== before.state) ctx.print(`(${stateLabel(after.state)})\n`);
}

/** `stream <url> <text...>`: like send, printing the events as they arrive. */
export async function stream(ctx: CommandContext): Promise<number> {
  const url = needUrl(ctx);
  const text = textOf(ctx);
  const client = await ctx.connect(url);
  try {
    const convo = client.conversation(ctx.args.fresh ? undefined : ctx.state.conversations[url]);
    let view: ConversationView = EMPTY_VIEW;
    try {
      for await (const event of convo.stream(text, { signal: ctx.signal, timeoutMs: ctx.args.timeoutMs })) {
        const next = reduceView(view, event);
        if (ctx.args.json) ctx.print(`${JSON.stringify(event)}\n`);
        else printEvent(ctx, view, next, event);
        view = next;
      }
    } finally {
      await remember(ctx, url, convo.toJSON());
    }
    return exitCodeOf(convo.state);
  } finally {
    await client.close();
  }
}

/** `get [url] <taskId>`. */
export async function get(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { url, rest } = urlAndRest(ctx, env);
  const id = needTaskId(ctx, rest);
  const client = await ctx.connect(url);
  try {
    const task = await client.getTask({ id }, { timeoutMs: ctx.args.timeoutMs });
    await remember(ctx, url);
    ctx.print(ctx.args.json ? `${JSON.stringify(task)}\n` : taskBlock(task));
    return 0;
  } finally {
    await client.close();
  }
}

function statusFilter(value: string | undefined): TaskState | undefined {
  if (value === undefined) return undefined;
  const state = stateToV1(value);
  if (state === 'TASK_STATE_UNSPECIFIED') {
    throw new UsageError(`--status ${value} is not a task state; use submitted, working, input-required, auth-required, completed, failed, canceled or rejected`);
  }
  return state;
}

/** `list [url]`. */
export async function list(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { url, rest } = urlAndRest(ctx, env);
  if (rest.length > 0) throw new UsageError(`list takes no arguments besides the URL (got ${rest.join(' ')}); filter with --context or --status`);
  const status = statusFilter(ctx.args.status);
  const client = await ctx.connect(url);
  try {
    const page = await client.listTasks(
      {
        ...(ctx.args.context && { contextId: ctx.args.context }),
        ...(status && { status }),
        ...(ctx.args.pageSize !== undefined && { pageSize: ctx.args.pageSize }),
        ...(ctx.args.pageToken && { pageToken: ctx.args.pageToken }),
        historyLength: 1,
      },
      { timeoutMs: ctx.args.timeoutMs },
    );
    await remember(ctx, url);
    if (ctx.args.json) ctx.print(`${JSON.stringify(page)}\n`);
    else {
      for (const task of page.tasks) ctx.print(`${taskRow(task)}\n`);
      ctx.print(`(${page.tasks.length} of ${page.totalSize} tasks${page.nextPageToken ? `; more with --page-token ${page.nextPageToken}` : ''})\n`);
    }
    return 0;
  } finally {
    await client.close();
  }
}

/** `cancel [url] <taskId>`. */
export async function cancel(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { url, rest } = urlAndRest(ctx, env);
  const id = needTaskId(ctx, rest);
  const client = await ctx.connect(url);
  try {
    const task = await client.cancelTask({ id }, { timeoutMs: ctx.args.timeoutMs });
    await remember(ctx, url);
    ctx.print(ctx.args.json ? `${JSON.stringify(task)}\n` : `task ${task.id}: ${stateLabel(task.status.state)}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/** `watch [url] <taskId>`: a live status line (with `metadata.progress`), then the artifacts. */
export async function watch(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { url, rest } = urlAndRest(ctx, env);
  const id = needTaskId(ctx, rest);
  const client = await ctx.connect(url);
  try {
    await remember(ctx, url);
    let view: ConversationView = EMPTY_VIEW;
    let shown = '';
    const show = () => {
      const line = statusLine(view);
      if (ctx.args.json || line === shown) return;
      shown = line;
      ctx.print(ctx.interactive ? `\r\u001b[2K${line}` : `${line}\n`);
    };
    try {
      // Until the agent's turn ends: a task waiting for input ends the watch too (SubscribeToTask alone would go on).
      for await (const event of untilSettled(client.subscribeToTask({ id }, { signal: ctx.signal }))) {
        view = reduceView(view, event);
        if (ctx.args.json) ctx.print(`${JSON.stringify(event)}\n`);
        show();
      }
    } catch (error) {
      // A finished task has nothing to follow: show it as it ended.
      if (!(A2AError.is(error) && error.kind === 'UnsupportedOperation')) throw error;
      const task = await client.getTask({ id });
      view = reduceView(view, { task });
      if (ctx.args.json) ctx.print(`${JSON.stringify({ sequence: 0, response: { task } })}\n`);
      show();
    }
    if (ctx.args.json) return exitCodeOf(view.state);
    if (ctx.interactive) ctx.print('\n');
    if (ctx.signal?.aborted) {
      ctx.print(`stopped watching; task ${id} goes on (${stateLabel(view.state)})\n`);
      return 0;
    }
    const said = [...view.messages].reverse().find((m) => m.role === 'ROLE_AGENT');
    if (said) ctx.print(`${messageText(said)}\n`);
    for (const a of view.artifacts) ctx.print(artifactBlock(a.artifact));
    ctx.print(`(task ${id}: ${stateLabel(view.state)})\n`);
    return exitCodeOf(view.state);
  } finally {
    await client.close();
  }
}

/** `card <url>`. */
export async function card(ctx: CommandContext): Promise<number> {
  const url = needUrl(ctx);
  if (ctx.args.positionals.length > 1) throw new UsageError('card takes only the agent URL');
  const value = (await ctx.card(url)) as Parameters<typeof cardBlock>[0];
  ctx.print(ctx.args.json ? `${JSON.stringify(value, null, 2)}\n` : cardBlock(value));
  return 0;
}
