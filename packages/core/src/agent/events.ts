import type { A2AError } from '../errors.js';
import type { Artifact, Message, Part, Struct, TaskState } from '../schema/index.js';

/** Text, parts, or a whole message: what an agent says in a status update. */
export type Say = string | readonly Part[] | Omit<Message, 'role' | 'messageId'> & { messageId?: string };

/**
 * An event as an agent emits it: the task and context ids are filled in by
 * the service. `status` changes the task's state; `artifact` adds or
 * updates an output; `reply` answers with one agent message (see
 * {@link reply}); `refuse` ends the call with an error (see {@link refuse}).
 */
export type AgentEvent =
  | { readonly kind: 'status'; readonly state: TaskState; readonly message?: Say | undefined; readonly metadata?: Struct | undefined }
  | { readonly kind: 'reply'; readonly message: Say }
  | { readonly kind: 'refuse'; readonly error: A2AError; readonly blocking?: A2AError | undefined }
  | {
      readonly kind: 'artifact';
      readonly artifact: Artifact;
      readonly append?: boolean | undefined;
      readonly lastChunk?: boolean | undefined;
      readonly metadata?: Struct | undefined;
      /** Merge with the run's next chunks while a commit is in flight (see {@link ArtifactOptions.coalesce}). */
      readonly coalesce?: boolean | CoalesceOptions | undefined;
    };

/** Options of a status event: extra event metadata (for example `{ progress: { current, total } }`). */
export interface StatusOptions {
  readonly metadata?: Struct;
}

/** A status event moving the task to `state`, with an optional agent message. */
export function status(state: TaskState, message?: Say, options: StatusOptions = {}): AgentEvent {
  return { kind: 'status', state, message, metadata: options.metadata };
}
/** The agent is working (optionally saying on what). */
export const working = (message?: Say, options?: StatusOptions) => status('TASK_STATE_WORKING', message, options);
/** The agent needs the user's next message on this same task. */
export const inputRequired = (message: Say, options?: StatusOptions) => status('TASK_STATE_INPUT_REQUIRED', message, options);
/** The agent needs the user to authenticate, then send the next message on this task. */
export const authRequired = (message: Say, options?: StatusOptions) => status('TASK_STATE_AUTH_REQUIRED', message, options);
/** The task is done. */
export const completed = (message?: Say, options?: StatusOptions) => status('TASK_STATE_COMPLETED', message, options);
/** The task failed; say why. */
export const failed = (message: Say, options?: StatusOptions) => status('TASK_STATE_FAILED', message, options);
/** The agent will not do this task; say why. */
export const rejected = (message: Say, options?: StatusOptions) => status('TASK_STATE_REJECTED', message, options);

/**
 * Answers with one agent message. As the first event of a run on a new
 * task, no task is made: the caller gets the message (SendMessage returns
 * `{ message }`, a stream sends that one message and ends) and nothing is
 * stored. On a task that is already stored (a continuation, a task sent
 * with `returnImmediately` or a push config, or an agent that emitted
 * other events or took longer than the service's `newTaskWindowMs` to
 * answer) it completes the task with that message as its status message.
 * Either way the run is over: return.
 */
export const reply = (message: Say): AgentEvent => ({ kind: 'reply', message });

/** Options of {@link refuse}. */
export interface RefuseOptions {
  /** The error a blocking SendMessage gets instead of the refusal's own (a stream, or a v0.3 `message/stream`, gets the refusal's). */
  readonly blocking?: A2AError;
}

/**
 * Refuses the call that started the run with `error` (an A2AError: its
 * code goes to the caller as the transport writes it). As the run's first
 * event on a new task, nothing is stored: a blocking SendMessage rejects
 * with `options.blocking ?? error` and a stream is refused before its first
 * event. On a task already stored (a continuation, or after other events)
 * the task fails with the error's message as its agent status message: a
 * blocking SendMessage waiting in this process rejects with
 * `options.blocking ?? error`, the stream of the SendStreamingMessage that
 * started the turn ends with `error` after the events it had, and other
 * streams (SubscribeToTask) see the task fail. Either way the run is over:
 * return. For adapters that must answer as another server would.
 */
export const refuse = (error: A2AError, options: RefuseOptions = {}): AgentEvent => ({ kind: 'refuse', error, blocking: options.blocking });

/** An artifact to emit: id and parts, or just parts/text with a name (the id is then the name). */
export type ArtifactInit = Omit<Artifact, 'artifactId' | 'parts'> & {
  readonly artifactId?: string;
  readonly parts?: readonly Part[];
  readonly text?: string;
};

/** How coalesced chunks are paced (see {@link ArtifactOptions.coalesce}). */
export interface CoalesceOptions {
  /**
   * The least time, in milliseconds, from the start of one commit of the
   * run's coalesced chunks to the start of the next (default 0: a chunk
   * waits only while an earlier event of the run is in flight). With 50, an
   * answer streamed at any token rate costs at most 20 commits a second;
   * the chunks waiting go out with the first chunk that comes once the
   * interval is over, or when the first of them has waited the interval,
   * so none waits much longer than that while the store keeps up. The
   * first chunk is never held.
   */
  readonly minIntervalMs?: number;
}

/** Options of an artifact event: `append` adds to an earlier chunk, `lastChunk` marks the final one. */
export interface ArtifactOptions {
  readonly append?: boolean;
  readonly lastChunk?: boolean;
  readonly metadata?: Struct;
  /**
   * Opt in to coalescing (for token streams): a chunk emitted while an
   * earlier event of the run is still being committed waits, and every
   * chunk of the same artifact with `append: true` emitted meanwhile joins
   * it, so they go out as one event in one commit when the store is free
   * again. The stored artifact and a reader that appends the chunks get
   * the same text (adjacent plain text parts are joined into one part;
   * artifact fields and event metadata merge as successive chunks would,
   * later keys winning). A chunk emitted while nothing is in flight is
   * committed at once, so the first delta goes out without delay and the
   * number of commits is bounded by the store's round trip, not by how
   * often the agent emits. Emit the chunks without awaiting each one
   * (awaiting each leaves nothing to merge); each promise still resolves
   * only once its text is committed. Other events of the run are committed
   * after the chunks emitted before them. When a chunk's commit fails,
   * the chunks waiting behind it and every later coalesced chunk of the
   * run reject with that error (so no text goes out after a gap), and a
   * run that then ends without settling its task fails it; once the run
   * is aborted (its task canceled) waiting chunks reject with the abort
   * reason instead of being committed. A coalesced chunk's rejection never
   * counts as unhandled. `{ minIntervalMs }` also spaces the commits out
   * (see {@link CoalesceOptions}).
   */
  readonly coalesce?: boolean | CoalesceOptions;
}

/** An artifact event. `artifactId` defaults to `name`; `text` is shorthand for one text part. */
export function artifact(init: ArtifactInit, options: ArtifactOptions = {}): AgentEvent {
  const { text, parts, artifactId, ...rest } = init;
  const id = artifactId ?? init.name;
  if (!id) throw new TypeError('An artifact needs an artifactId or a name');
  const allParts: Part[] = [...(parts ?? []), ...(text !== undefined ? [{ text }] : [])];
  return {
    kind: 'artifact',
    artifact: { ...rest, artifactId: id, parts: allParts },
    append: options.append,
    lastChunk: options.lastChunk,
    metadata: options.metadata,
    coalesce: options.coalesce,
  };
}

/** Builds an agent message from what an agent says, with a fresh messageId from `newId` (and the task id, when `ids` has one). */
export function agentMessage(say: Say, ids: { taskId?: string; contextId: string }, newId: () => string): Message {
  if (typeof say === 'string') return { messageId: newId(), role: 'ROLE_AGENT', parts: [{ text: say }], ...ids };
  if (Array.isArray(say)) return { messageId: newId(), role: 'ROLE_AGENT', parts: [...(say as Part[])], ...ids };
  const msg = say as Exclude<Say, string | readonly Part[]>;
  const messageId = msg.messageId ?? newId();
  // Not `{ ...msg, ... }`: V8 gives an object literal that starts with a spread a hidden class of its own, kept with
  // every stored message; one that starts with properties shares its class with the others.
  const message: Message = Object.assign({ messageId, role: 'ROLE_AGENT' as const, parts: msg.parts }, msg, ids);
  message.messageId = messageId;
  message.role = 'ROLE_AGENT';
  return message;
}
