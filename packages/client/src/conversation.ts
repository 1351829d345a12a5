import type { CallOptions, Message, Part, SendMessageConfiguration, StreamEvent, StreamResponse, Struct, Task } from '@taskwire/core';
import { A2AError, isSettled } from '@taskwire/core';
import type { A2AClient } from './client.js';
import type { ConversationState, TaskRouting } from './task-routing.js';
import { routeNextMessage } from './task-routing.js';
import type { ConversationView, ViewOptions } from './view/reduce.js';
import { EMPTY_VIEW, reduceView } from './view/reduce.js';
import type { WaitOptions } from './wait-for-task.js';

export type { ConversationState, TaskRouting } from './task-routing.js';

/** What the user says: a text, parts, or parts with message metadata. */
export type ConversationInput = string | readonly Part[] | { readonly parts: readonly Part[]; readonly metadata?: Struct };

/** Options of {@link Conversation.send}. */
export interface SendOptions extends CallOptions {
  readonly configuration?: SendMessageConfiguration;
  /**
   * When the agent answers before the task settles (or `returnImmediately`
   * is set), poll with `waitForTask` until it is terminal or interrupted
   * (default true).
   */
  readonly wait?: boolean;
  /** Options of that wait. */
  readonly waitOptions?: WaitOptions;
}

/** The agent's answer to one `send`. */
export interface ConversationReply {
  /** The task the message went to (absent when the agent answered with a message only). */
  readonly task: Task | undefined;
  /** The agent's direct message, when it answered without a task. */
  readonly message: Message | undefined;
  /** The agent's words: the text of its message, or of the task's status message ('' when none). */
  readonly text: string;
}

/** The text parts of a message, joined with newlines. */
export function textOfMessage(message: Pick<Message, 'parts'> | undefined): string {
  return (message?.parts ?? [])
    .map((p) => ('text' in p ? p.text : undefined))
    .filter((t): t is string => t !== undefined)
    .join('\n');
}

function partsOf(input: ConversationInput): { parts: Part[]; metadata?: Struct } {
  if (typeof input === 'string') return { parts: [{ text: input }] };
  if (Array.isArray(input)) return { parts: [...(input as readonly Part[])] };
  const { parts, metadata } = input as { parts: readonly Part[]; metadata?: Struct };
  return { parts: [...parts], ...(metadata && { metadata }) };
}

/**
 * A conversation with one agent. It remembers the context, the current task
 * and its state, and decides for every message which task it goes to (see
 * {@link routeNextMessage}): it continues an input-required or auth-required
 * task, starts a new task referring to a finished one, and starts afresh
 * otherwise. The caller never handles a task id. `view` is the conversation
 * as a UI shows it; `toJSON()` is what to save to pick the conversation up
 * later (`client.conversation(saved)`).
 */
export class Conversation {
  private current: ConversationState;
  private shown: ConversationView = EMPTY_VIEW;

  constructor(
    readonly client: A2AClient,
    state: ConversationState = {},
    private readonly viewOptions: ViewOptions = {},
  ) {
    this.current = { ...state };
  }

  /** The context id (once the agent has given one). */
  get contextId(): string | undefined {
    return this.current.contextId;
  }
  /** The current task's id. */
  get taskId(): string | undefined {
    return this.current.taskId;
  }
  /** The current task's state. */
  get state(): ConversationState['state'] {
    return this.current.state;
  }
  /** The messages and artifacts seen so far, as the view reducer builds them. */
  get view(): ConversationView {
    return this.shown;
  }

  /** Where the next message will go. */
  next(): TaskRouting {
    return routeNextMessage(this.current);
  }

  /** Records an event of this conversation (any shape the view reducer reads): updates the state and the view. */
  observe(event: StreamResponse | StreamEvent): void {
    const response = 'response' in event ? event.response : event;
    this.shown = reduceView(this.shown, response, this.viewOptions);
    if ('task' in response) {
      const t = response.task;
      this.current = { contextId: t.contextId || this.current.contextId, taskId: t.id, state: t.status.state };
    } else if ('statusUpdate' in response) {
      const u = response.statusUpdate;
      this.current = { contextId: u.contextId || this.current.contextId, taskId: u.taskId, state: u.status.state };
    } else if ('message' in response) {
      this.current = { ...this.current, contextId: response.message.contextId ?? this.current.contextId };
    }
  }

  /**
   * Sends a user message to the task the conversation's rule picks, and
   * resolves with the agent's reply once the task is terminal or
   * interrupted (polling when the agent answers early, unless `wait: false`).
   * When a task it meant to continue has ended meanwhile, it refreshes the
   * task's state and sends again as the rule then says.
   */
  async send(input: ConversationInput, options: SendOptions = {}): Promise<ConversationReply> {
    const { configuration, wait, waitOptions, ...call } = options;
    const result = await this.rerouting(async () => {
      const message = this.message(input);
      const reply = await this.client.sendMessage({ message, ...(configuration && { configuration }) }, call);
      this.observe({ message });
      return reply;
    });
    this.observe(result);
    if ('message' in result) return { task: undefined, message: result.message, text: textOfMessage(result.message) };
    let task = result.task;
    if (wait !== false && !isSettled(task.status.state)) {
      task = await this.client.waitForTask(task.id, { signal: call.signal, ...waitOptions });
      this.observe({ task });
    }
    return { task, message: undefined, text: textOfMessage(task.status.message) };
  }

  /**
   * Streams a user message (same task rule as {@link send}), yielding every
   * event while keeping the conversation's state and view up to date.
   * Dropped streams are resumed; agents that do not stream are polled.
   */
  async *stream(input: ConversationInput, options: Omit<SendOptions, 'wait' | 'waitOptions'> = {}): AsyncGenerator<StreamEvent> {
    const { configuration, ...call } = options;
    let message: Message | undefined;
    const events = await this.rerouting(async () => {
      message = this.message(input);
      const iterator = this.client.sendStreamingMessage({ message, ...(configuration && { configuration }) }, call)[Symbol.asyncIterator]();
      const first = await iterator.next();
      return { iterator, first };
    });
    this.observe({ message: message! });
    let item = events.first;
    try {
      for (; !item.done; item = await events.iterator.next()) {
        this.observe(item.value);
        yield item.value;
      }
    } finally {
      if (!item.done) await events.iterator.return?.();
    }
  }

  /** Waits (polling GetTask with backoff) until the current task is settled, or meets `options.until`. */
  async wait(options: WaitOptions = {}): Promise<Task> {
    if (this.current.taskId === undefined) throw new Error('This conversation has no task yet: send a message first');
    const task = await this.client.waitForTask(this.current.taskId, options);
    this.observe({ task });
    return task;
  }

  /** Cancels the current task. */
  async cancel(options: CallOptions = {}): Promise<Task> {
    if (this.current.taskId === undefined) throw new Error('This conversation has no task to cancel: send a message first');
    const task = await this.client.cancelTask({ id: this.current.taskId }, options);
    this.observe({ task });
    return task;
  }

  /** The conversation's state, to save and restore with `client.conversation(state)`. */
  toJSON(): ConversationState {
    return { ...this.current };
  }

  /** The user message the next send carries: parts, a new messageId, and the routing's ids. */
  message(input: ConversationInput): Message {
    const route = this.next();
    return {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      ...partsOf(input),
      ...(route.contextId !== undefined && { contextId: route.contextId }),
      ...(route.taskId !== undefined && { taskId: route.taskId }),
      ...(route.referenceTaskIds && { referenceTaskIds: [...route.referenceTaskIds] }),
    };
  }

  /**
   * Runs `attempt`; when it fails because the task it continued has ended
   * (UnsupportedOperation) or is gone (TaskNotFound), refreshes the state
   * and runs it once more, routed anew.
   */
  private async rerouting<T>(attempt: () => Promise<T>): Promise<T> {
    const route = this.next();
    try {
      return await attempt();
    } catch (error) {
      if (route.action !== 'continue' || !A2AError.is(error) || route.taskId === undefined) throw error;
      if (error.kind === 'TaskNotFound') this.current = { contextId: this.current.contextId };
      else if (error.kind === 'UnsupportedOperation') this.observe({ task: await this.client.getTask({ id: route.taskId }) });
      else throw error;
      if (this.next().action === 'continue') throw error;
      return attempt();
    }
  }
}
