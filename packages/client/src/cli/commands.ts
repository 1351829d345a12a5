import type { TaskState } from '@taskwire/core';
import { A2AError, stateToV1 } from '@taskwire/core';
import type { A2AClient } from '../client.js';
import { untilSettled } from '../until-settled.js';
import type { ConversationView } from '../view/reduce.js';
import { EMPTY_VIEW, reduceView } from '../view/reduce.js';
import { UsageError } from './args.js';
import type { CliArgs } from './args.js';
import { EventPrinter } from './event-printer.js';
import { artifactBlock, cardBlock, exitCodeOf, messageText, stateLabel, statusLine, taskBlock, taskRow } from './format.js';
import type { CliState } from './state-file.js';
import { agentUrl } from './targets.js';
import { activation } from './activation.js';

/** What a command works with. */
export interface CommandContext {
  readonly args: CliArgs;
  readonly state: CliState;
  /**
   * Prints to standard output: in human output, control characters are
   * stripped (see `stripControls`); with `--json`, the JSON is printed as
   * the same value.
   */
  print(text: string): void;
  /** Replaces the current terminal line with `line` (stripped as `print` does): the live status line of `watch`. */
  rewrite(line: string): void;
  readonly interactive: boolean;
  readonly signal: AbortSignal | undefined;
  connect(url: string): Promise<A2AClient>;
  /** Remembers the state for the next run. */
  save(state: CliState): Promise<void>;
  /** The agent card of a URL (for `card`). */
  card(url: string): Promise<unknown>;
}

function needUrl(ctx: CommandContext): string {
  const [first] = ctx.args.positionals;
  const url = agentUrl(first);
  if (!url) {
    const got = first ? ` (got "${first}")` : '';
    throw new UsageError(`${ctx.args.command} needs the agent's URL first${got}, e.g. taskwire ${ctx.args.command} http://127.0.0.1:8080 ...`);
  }
  return url;
}

/** `[url] <rest...>`: the URL when given, else --url, TASKWIRE_URL or the last agent used. */
function urlAndRest(ctx: CommandContext, env: Readonly<Record<string, string | undefined>>): { url: string; rest: readonly string[] } {
  const [first, ...others] = ctx.args.positionals;
  const given = agentUrl(first);
  if (given) return { url: given, rest: others };
  const named = ctx.args.url ?? env.TASKWIRE_URL;
  const url = named === undefined ? ctx.state.lastUrl : agentUrl(named);
  if (named !== undefined && !url) throw new UsageError(`--url (or TASKWIRE_URL) "${named}" is not a URL, e.g. http://127.0.0.1:8080`);
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
    const activated = activation(ctx);
    const reply = await convo.send(text, { signal: ctx.signal, timeoutMs: ctx.args.timeoutMs, ...activated.options });
    await remember(ctx, url, convo.toJSON());
    const extensions = activated.seen();
    if (ctx.args.json) ctx.print(`${JSON.stringify({ task: reply.task, message: reply.message, text: reply.text, conversation: convo.toJSON(), ...(extensions && { extensions }) })}\n`);
    else {
      if (reply.text) ctx.print(`${reply.text}\n`);
      for (const a of reply.task?.artifacts ?? []) ctx.print(artifactBlock(a));
      if (reply.task) ctx.print(`(task ${reply.task.id}: ${stateLabel(reply.task.status.state)})\n`);
      activated.print();
    }
    return exitCodeOf(reply.task?.status.state);
  } finally {
    await client.close();
  }
}

/** `stream <url> <text...>`: like send, printing the events as they arrive. */
export async function stream(ctx: CommandContext): Promise<number> {
  const url = needUrl(ctx);
  const text = textOf(ctx);
  const client = await ctx.connect(url);
  try {
    const convo = client.conversation(ctx.args.fresh ? undefined : ctx.state.conversations[url]);
    let view: ConversationView = EMPTY_VIEW;
    const printer = new EventPrinter((text) => ctx.print(text));
    const activated = activation(ctx);
    try {
      for await (const event of convo.stream(text, { signal: ctx.signal, timeoutMs: ctx.args.timeoutMs, ...activated.options })) {
        const next = reduceView(view, event);
        if (ctx.args.json) ctx.print(`${JSON.stringify(event)}\n`);
        else printer.print(view, next, event);
        view = next;
      }
      printer.close();
      if (!ctx.args.json) activated.print();
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
  const state = stateToV1(value.replace(/^task_state_/i, ''));
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
      if (ctx.interactive) ctx.rewrite(line);
      else ctx.print(`${line}\n`);
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
