import type { AgentContext } from '../agent/agent.js';
import { textOf } from '../agent/agent.js';
import type { AgentEvent, ArtifactInit, ArtifactOptions, RefuseOptions, Say, StatusOptions } from '../agent/events.js';
import type { A2AError } from '../errors.js';
import * as build from '../agent/events.js';
import type { Message, Task } from '../schema/index.js';
import type { Principal } from '../calls.js';
import { NO_EXTENSIONS, type AgentExtensions, type ExtensionActivation } from '../extensions.js';

/**
 * One run's cancellation. The AbortController (costly to make) is created
 * only when something reads {@link RunHandle.signal}; an abort before that is
 * remembered and the signal starts out aborted, with the same reason.
 */
export class RunHandle {
  private controller: AbortController | undefined;
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

  /** Aborts the run; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
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
