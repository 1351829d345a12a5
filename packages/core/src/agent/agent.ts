import type { Message, Task } from '../schema/index.js';
import type { Principal } from '../calls.js';
import type { A2AError } from '../errors.js';
import type { AgentExtensions } from '../extensions.js';
import type { AgentEvent, ArtifactInit, ArtifactOptions, RefuseOptions, Say, StatusOptions } from './events.js';

/**
 * What an agent receives for one run: the task (after the user's message),
 * that message, the tasks it names in `referenceTaskIds`, the caller, and a
 * `signal` aborted when the task is canceled.
 *
 * The tasks (and the parts of the message) are the stored, deep-frozen
 * objects: read them, do not mutate them. What an agent emits (messages,
 * parts, artifacts, metadata) is frozen when it is committed: pass objects
 * the agent will not change afterwards. The helpers may be destructured
 * (`async ({ text, complete }) => complete(text)`).
 *
 * Every helper commits its event before it resolves, and rejects with an
 * `InvalidAgentResponse` A2AError when the event is not a valid transition
 * (the task is left as it was). After `reply`, `inputRequired`,
 * `authRequired`, `complete`, `fail` or `reject` the run is over: return.
 *
 * A new task is stored with the agent's first event, in one commit, when
 * that event comes within the service's `newTaskWindowMs`; until then it
 * does not exist for anyone else. That is what lets `reply` answer with a
 * message and no task at all.
 */
export interface AgentContext {
  readonly task: Task;
  readonly message: Message;
  /** The referenced tasks that exist and are visible to the caller. */
  readonly referencedTasks: readonly Task[];
  readonly principal: Principal | undefined;
  /** True when this run continues an input-required or auth-required task. */
  readonly isContinuation: boolean;
  /** The tenant of the call that started the run (the request's `tenant`, or the transport's from its path); undefined without one. */
  readonly tenant?: string | undefined;
  /**
   * The A2A extensions the request asked for (`requested`), and
   * `activate(uri)` for those this run applies: the activated set goes back
   * to the client (the `A2A-Extensions` response header, gRPC response
   * metadata, the WebSocket reply). Activate at the start of the run,
   * before the first event; `activate` returns false when it is too late or
   * `uri` was not requested.
   */
  readonly extensions: AgentExtensions;
  /**
   * Aborted when the task is canceled (or the service closes). With a
   * cancel grace (the agent's `cancelGraceMs`, or the service's) the task
   * is not canceled yet when it aborts: the agent may end it itself within
   * the grace (its own canceled status, with a message saying why).
   */
  readonly signal: AbortSignal;
  /** The user text of the message: its text parts joined with newlines. */
  readonly text: string;
  /** Emits any agent event. */
  emit(event: AgentEvent): Promise<void>;
  /**
   * Answers with one agent message. As the run's first event on a new task
   * it makes no task: the caller gets `{ message }` (a stream sends that one
   * message and ends; v0.3 callers get `kind: "message"`), and nothing is
   * stored. On a task already stored (a continuation, a send with
   * `returnImmediately` or a push config, or after other events or the
   * service's `newTaskWindowMs`) it completes the task with the message as
   * its status message instead. Either way the run is over.
   */
  reply(message: Say): Promise<void>;
  working(message?: Say, options?: StatusOptions): Promise<void>;
  artifact(init: ArtifactInit, options?: ArtifactOptions): Promise<void>;
  inputRequired(message: Say, options?: StatusOptions): Promise<void>;
  authRequired(message: Say, options?: StatusOptions): Promise<void>;
  complete(message?: Say, options?: StatusOptions): Promise<void>;
  fail(message: Say, options?: StatusOptions): Promise<void>;
  reject(message: Say, options?: StatusOptions): Promise<void>;
  /**
   * Refuses the call with an A2A error instead of answering it: on a new
   * task nothing is stored and the caller gets `error` (a blocking
   * SendMessage `options.blocking` when given); on a stored task the task
   * fails with the error's message. The run is over: return. See
   * {@link refuse} in the events module.
   */
  refuse(error: A2AError, options?: RefuseOptions): Promise<void>;
}

/**
 * An agent: plain async code. Either an async function that uses the
 * context's helpers, or an async generator that yields {@link AgentEvent}s
 * (from `working()`, `artifact()`, `completed()` ...).
 *
 * When it returns without having reached a terminal or interrupted state the
 * task is completed; when it throws the task fails with the error's message.
 *
 * `cancelGraceMs`, when set, is how long a CancelTask of a task this agent
 * is running waits, once the run's signal has aborted, for the agent to end
 * the task itself (see `TaskServiceOptions.cancelGraceMs`, which overrides it).
 */
export type Agent = ((context: AgentContext) => Promise<void> | AsyncIterable<AgentEvent>) & { readonly cancelGraceMs?: number };

/** The text parts of a message joined with newlines. */
export function textOf(message: Pick<Message, 'parts'>): string {
  let text: string | undefined;
  for (const part of message.parts) {
    if (!('text' in part)) continue;
    text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}
