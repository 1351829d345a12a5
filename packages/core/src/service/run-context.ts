import type { AgentContext } from '../agent/agent.js';
import { textOf } from '../agent/agent.js';
import type { AgentEvent, ArtifactInit, ArtifactOptions, RefuseOptions, Say, StatusOptions } from '../agent/events.js';
import type { A2AError } from '../errors.js';
import * as build from '../agent/events.js';
import type { Message, Task } from '../schema/index.js';
import type { Principal } from '../calls.js';
import { NO_EXTENSIONS, type AgentExtensions, type ExtensionActivation } from '../extensions.js';

/** Told once, with the abort's reason, when a run aborts (see {@link onAbort}). */
export type AbortListener = (reason: unknown) => void;

/**
 * One run's cancellation. The AbortController (costly to make) is created
 * only when something reads {@link RunHandle.signal}; an abort before that is
 * remembered and the signal starts out aborted, with the same reason.
 * Listeners added with {@link RunHandle.onAbort} need no signal at all.
 */
export class RunHandle {
  private controller: AbortController | undefined;
  private listeners: AbortListener | AbortListener[] | undefined = undefined;
  /** The epoch of this run's lease, with several processes on the store (see `RunLease`): its commits are fenced by it. */
  epoch: number | undefined = undefined;
  /** True once {@link abort} was called. */
  aborted = false;
  /** True once the agent answered its new task with a message, or refused it (nothing was stored; the run may emit nothing more). */
  replied = false;
  /** True once an event of the agent left its task terminal or interrupted. */
  settled = false;
  /** The reason given to the first {@link abort}. */
  reason: unknown = undefined;
  /** Resolves once the run has ended (set when it starts). */
  ended: Promise<void> | undefined = undefined;

  /** The run's signal: aborted with {@link reason} once {@link abort} is called (before or after this read). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Calls `listener` with the reason when the run aborts (after the signal's own listeners); false, calling nothing, when it has already. */
  onAbort(listener: AbortListener): boolean {
    if (this.aborted) return false;
    const listeners = this.listeners;
    this.listeners = listeners === undefined ? listener : Array.isArray(listeners) ? [...listeners, listener] : [listeners, listener];
    return true;
  }

  /** Aborts the run; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (typeof listeners === 'function') tell(listeners, reason);
    else if (listeners !== undefined) for (const listener of listeners) tell(listener, reason);
  }
}

/** Calls one abort listener; what it throws is reported as uncaught, as an event listener's is, and the abort goes on. */
function tell(listener: AbortListener, reason: unknown): void {
  try {
    listener(reason);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/**
 * Calls `listener` once, with the abort's reason, when the run of `ctx`
 * aborts (the task is canceled or the service closes), as an `abort`
 * listener on `ctx.signal` would be called, but without making the run's
 * `AbortSignal` when `ctx` is the service's own context (the signal and its
 * listener cost a short run a few percent of its CPU; an agent, or an
 * adapter, that only needs to be told of a cancel saves that). When the run
 * has already aborted it calls nothing and returns false (as a listener
 * added to an aborted signal is never called); true when the listener was
 * added. The listener runs synchronously inside the abort; what it throws
 * is reported as uncaught, as an event listener's is. On any other context (a wrapper an agent made) it listens on
 * `ctx.signal`.
 */
export function onAbort(ctx: AgentContext, listener: AbortListener): boolean {
  const handle = RunContext.handleOf(ctx);
  if (handle !== undefined) return handle.onAbort(listener);
  const signal = ctx.signal;
  if (signal.aborted) return false;
  signal.addEventListener('abort', () => listener(signal.reason), { once: true });
  return true;
}

/** What a {@link RunContext} is made of. */
export interface RunContextInit {
  readonly task: Task;
  readonly message: Message;
  readonly referencedTasks: readonly Task[];
  readonly principal: Principal | undefined;
  readonly isContinuation: boolean;
  readonly tenant?: string | undefined;
  readonly extensions?: ExtensionActivation | undefined;
}

/**
 * The {@link AgentContext} of one run. A class rather than an object of
 * closures: a run allocates only the helpers the agent reads. The helpers
 * are getters returning functions that need no `this`, so an agent may
 * destructure them (`async ({ text, complete }) => complete(text)`); `text`
 * is computed on first read.
 */
export class RunContext implements AgentContext {
  readonly task: Task;
  readonly message: Message;
  readonly referencedTasks: readonly Task[];
  readonly principal: Principal | undefined;
  readonly isContinuation: boolean;
  readonly tenant: string | undefined;
  readonly extensions: AgentExtensions;
  readonly #handle: RunHandle;
  readonly #emit: (event: AgentEvent) => Promise<void>;
  #text: string | undefined;

  /** `emit` commits one agent event (the runner supplies it). */
  constructor(init: RunContextInit, handle: RunHandle, emit: (event: AgentEvent) => Promise<void>) {
    this.task = init.task;
    this.message = init.message;
    this.referencedTasks = init.referencedTasks;
    this.principal = init.principal;
    this.isContinuation = init.isContinuation;
    this.tenant = init.tenant;
    this.extensions = init.extensions ?? NO_EXTENSIONS;
    this.#handle = handle;
    this.#emit = emit;
  }

  /** The run's handle when `ctx` is a RunContext (for {@link onAbort}); undefined for any other context. */
  static handleOf(ctx: AgentContext): RunHandle | undefined {
    return #handle in ctx ? ctx.#handle : undefined;
  }

  get signal(): AbortSignal {
    return this.#handle.signal;
  }

  get text(): string {
    return (this.#text ??= textOf(this.message));
  }

  get emit(): (event: AgentEvent) => Promise<void> {
    return this.#emit;
  }

  get reply(): (message: Say) => Promise<void> {
    return (message) => this.#emit(build.reply(message));
  }

  get working(): (message?: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.working(message, options));
  }

  get artifact(): (init: ArtifactInit, options?: ArtifactOptions) => Promise<void> {
    return (init, options) => this.#emit(build.artifact(init, options));
  }

  get inputRequired(): (message: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.inputRequired(message, options));
  }

  get authRequired(): (message: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.authRequired(message, options));
  }

  get complete(): (message?: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.completed(message, options));
  }

  get fail(): (message: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.failed(message, options));
  }

  get reject(): (message: Say, options?: StatusOptions) => Promise<void> {
    return (message, options) => this.#emit(build.rejected(message, options));
  }

  get refuse(): (error: A2AError, options?: RefuseOptions) => Promise<void> {
    return (error, options) => this.#emit(build.refuse(error, options));
  }
}
