import type { Agent } from '../agent/agent.js';
import type { AgentEvent, Say } from '../agent/events.js';
import * as build from '../agent/events.js';
import { A2AError } from '../errors.js';
import type { LifecycleEvent } from '../lifecycle/index.js';
import type { Message, Task } from '../schema/index.js';
import { isSettled, isTerminal } from '../schema/index.js';
import type { Logger } from '../observability/logger.js';
import type { RunObservation, RunObserver } from '../observability/run-observer.js';
import type { Principal } from '../calls.js';
import type { ExtensionActivation } from '../extensions.js';
import { lifecycleOf } from './agent-event-lifecycle.js';
import { RunContext, RunHandle } from './run-context.js';
import { RunEmitter } from './run-emitter.js';
import type { TaskEngine } from './task-engine.js';
import { TransitionFailure } from './task-engine.js';
import { LeaseLostError } from './coordination.js';

export type { Logger };

/** The abort reason of runs stopped by the service shutting down. */
export class ServiceClosing extends Error {
  override readonly name = 'ServiceClosing';
  constructor() {
    super('The server shut down while this task was running; send the request again');
  }
}

/** The status message of a task failed by {@link AgentRunner.failAbandoned}. */
export const ABANDONED = 'The server stopped while this task was running (it crashed or was killed); send the request again';

/** What one agent run needs. */
export interface RunInput {
  readonly task: Task;
  readonly message: Message;
  readonly referencedTasks: readonly Task[];
  readonly principal: Principal | undefined;
  readonly isContinuation: boolean;
  /** The tenant of the call that started the run, if any. */
  readonly tenant?: string | undefined;
  /** The call's extensions: requested, and where the agent's activations go (sealed at its first event). */
  readonly extensions?: ExtensionActivation | undefined;
  /** Trace context (W3C traceparents): the request that started this run, and the one that created the task. */
  readonly trace?: { readonly startedBy?: string | undefined; readonly origin?: string | undefined } | undefined;
}

/** How a run starts (see {@link AgentRunner.start}). */
export interface RunStart {
  /** The epoch of the lease the run's task was claimed with, when it was claimed before the run starts. */
  readonly epoch?: number | undefined;
  /** The tasks the message references, being read: the agent starts once they are. */
  readonly references?: Promise<readonly Task[]> | undefined;
}

/**
 * Runs agents and owns their abort controllers. A run turns the agent's
 * events into lifecycle events on the engine; when the agent returns without
 * a terminal or interrupted state the task completes, when it throws the
 * task fails with the error's message, and when the task is canceled the
 * run's signal aborts.
 */
export class AgentRunner {
  /** The current run of each task (a newer run of a task replaces an older one that is still ending). */
  private readonly controllers = new Map<string, RunHandle>();
  /** Every run in progress, current or not (shutdown aborts them all). */
  private readonly handles = new Set<RunHandle>();

  constructor(
    private readonly engine: TaskEngine,
    private readonly agent: Agent,
    private readonly newId: () => string,
    private readonly logger?: Logger,
    private readonly observer?: RunObserver,
  ) {}

  /** True while an agent run for `taskId` is in progress. */
  isRunning(taskId: string): boolean {
    return this.controllers.has(taskId);
  }

  /** Aborts the current run of `taskId`, if any, with `reason`; with `epoch`, only when that run holds the lease at `epoch`. */
  abort(taskId: string, reason: string, epoch?: number): void {
    const handle = this.controllers.get(taskId);
    if (handle === undefined || (epoch !== undefined && handle.epoch !== epoch)) return;
    handle.abort(new A2AError('UnsupportedOperation', reason));
  }

  /**
   * Aborts the current run of `taskId` with `reason` and resolves once that
   * run has ended or `withinMs` have passed, whichever comes first (at once
   * when none is in progress).
   */
  async abortAndWait(taskId: string, reason: string, withinMs: number): Promise<void> {
    const handle = this.controllers.get(taskId);
    if (handle === undefined) return;
    this.abort(taskId, reason);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([handle.ended, new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]).finally(() => clearTimeout(timer));
  }

  /** Aborts every run (service shutdown); their tasks fail, saying the server stopped. */
  abortAll(): void {
    for (const handle of this.handles) handle.abort(new ServiceClosing());
  }

  /**
   * Fails each of `taskIds` that is still submitted or working while no run
   * of this runner holds it: a run a stopped process left behind, which
   * nothing would ever settle; `say` is the agent message they fail with.
   * Resolves the ids it failed.
   */
  async failAbandoned(taskIds: Iterable<string>, say: string = ABANDONED): Promise<string[]> {
    const failed: string[] = [];
    for (const taskId of taskIds) {
      const current = this.isRunning(taskId) ? undefined : await this.engine.get(taskId);
      if (!current || isSettled(current.task.status.state)) continue;
      try {
        await this.engine.apply(taskId, this.toLifecycle(current.task, build.status('TASK_STATE_FAILED', say)));
        failed.push(taskId);
        this.observer?.recovered(taskId, current.trace);
      } catch (error) {
        // Settled meanwhile (canceled, say): nothing left to recover.
        if (!(error instanceof TransitionFailure)) throw error;
      }
    }
    return failed;
  }

  /**
   * Starts a run in the background; resolves when it has ended (never
   * rejects). The run is this task's current one from now on. `from.epoch`
   * is the epoch of the lease its task was claimed with (a continued,
   * created-at-once, resumed or taken-over task); a held-back task's run
   * gets its epoch from the task's first commit, whenever that comes. With
   * `from.references`, the agent starts once they are read (a failed read
   * ends the run before the agent starts).
   */
  start(input: RunInput, from: RunStart = {}): Promise<void> {
    const taskId = input.task.id;
    const handle = new RunHandle();
    handle.epoch = from.epoch;
    // Lost between the claim and now (the message's push config was being stored, say): the run starts aborted.
    if (from.epoch !== undefined && this.engine.leaseGone(taskId, from.epoch)) handle.abort(new LeaseLostError(taskId));
    this.engine.newTasks.bind(taskId, handle);
    this.controllers.set(taskId, handle);
    this.handles.add(handle);
    return (handle.ended = this.run(input, handle, from.references).finally(() => {
      this.handles.delete(handle);
      // Only the task's current run lets it go: an older run ending late must not drop a newer run's record or lease.
      if (this.controllers.get(taskId) !== handle) return;
      this.controllers.delete(taskId);
      this.engine.deactivate(taskId, handle.epoch);
    }));
  }

  private async run(input: RunInput, handle: RunHandle, references: Promise<readonly Task[]> | undefined): Promise<void> {
    if (references) {
      try {
        input = { ...input, referencedTasks: await references };
      } catch (error) {
        this.logger?.error({ taskId: input.task.id, error: String(error) }, 'could not read the referenced tasks; the agent was not started');
        return;
      }
    }
    // Its lease was lost before it started: the task is another process's now.
    if (handle.reason instanceof LeaseLostError) return;
    const observation = this.observer?.start(input);
    const emitter = this.emitter(input, handle, observation);
    const context = new RunContext(input, handle, emitter.emit);
    let outcome: unknown;
    try {
      const result = observation ? observation.with(() => this.agent(context)) : this.agent(context);
      if (result && typeof (result as AsyncIterable<AgentEvent>)[Symbol.asyncIterator] === 'function') {
        for await (const event of result as AsyncIterable<AgentEvent>) {
          if (handle.aborted) break;
          await context.emit(event);
        }
      } else {
        await result;
      }
    } catch (error) {
      outcome = error;
    }
    // Coalesced chunks still waiting go out before the run settles; one that failed unseen fails an unsettled task.
    const drained = emitter.drain();
    const failure = drained && (await drained);
    if (failure !== undefined && outcome === undefined && !handle.settled) outcome = failure.error;
    input.extensions?.seal();
    const finishing = this.finish(input.task, handle, outcome);
    if (finishing !== undefined) await finishing;
    observation?.end(this.engine.peek(input.task.id)?.task, outcome);
  }

  /**
   * Completes a task the agent left unsettled, or fails it after a throw;
   * undefined (no promise: the common end of a run allocates none) when
   * there is nothing to do.
   */
  private finish(task: Task, handle: RunHandle, error: unknown): Promise<void> | undefined {
    if (handle.replied) {
      if (error !== undefined) this.logger?.warn({ taskId: task.id, error: String(error) }, 'agent run failed after it replied');
      return undefined;
    }
    // A newer run of the task started (the agent asked for input and the answer came while it was still ending): the task is that run's.
    if (this.controllers.get(task.id) !== handle) return undefined;
    const closing = handle.reason instanceof ServiceClosing;
    // The agent settled its task itself: what happens to the task now (a continuation may be under way) is not this run's.
    if (handle.settled && error === undefined && !closing) return undefined;
    return this.settle(task, handle, error, closing);
  }

  /** {@link finish} for a run that left its task unsettled, failed, or was stopped by the service closing. */
  private async settle(task: Task, handle: RunHandle, error: unknown, closing: boolean): Promise<void> {
    let current;
    try {
      current = this.engine.peek(task.id) ?? (await this.engine.get(task.id));
    } catch (readError) {
      // The store cannot be read (its database is down, say): the task stays as stored, for a restart's recover to settle.
      this.logger?.error({ taskId: task.id, error: String(readError) }, 'could not read the task to settle it after its run');
      this.engine.settleFailed(task.id, readError);
      return;
    }
    if (!current || isTerminal(current.task.status.state)) return;
    if (handle.aborted && !closing) return;
    if (closing) error = handle.reason;
    else if (error === undefined && isSettled(current.task.status.state)) return;
    const say =
      error === undefined
        ? undefined
        : closing
          ? (error as Error).message
          : `The agent failed: ${error instanceof Error ? error.message : String(error)}`;
    if (closing) this.logger?.warn({ taskId: task.id }, 'the server stopped while this task ran: it failed, saying so (send it again after a restart)');
    else if (error !== undefined) this.logger?.warn({ taskId: task.id, error: String(error) }, 'agent run failed');
    const state = error === undefined ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_FAILED';
    try {
      await this.engine.apply(task.id, this.toLifecycle(current.task, build.status(state, say)), false, handle);
    } catch (finishError) {
      // A refused transition: the task was ended meanwhile (canceled from another process), nothing left to settle.
      if (finishError instanceof TransitionFailure) return;
      this.logger?.error({ taskId: task.id, error: String(finishError) }, 'could not settle task after its run');
      // A store failure (not a lost lease or a refused transition: the task moved on elsewhere) would leave waiters hanging.
      if (!(finishError instanceof LeaseLostError) && !(finishError instanceof TransitionFailure)) this.engine.settleFailed(task.id, finishError);
    }
  }

  /** The run's way to the store: each agent event committed (and coalesced chunks merged) in order. */
  private emitter(input: RunInput, handle: RunHandle, observation: RunObservation | undefined): RunEmitter {
    const taskId = input.task.id;
    const commit = async (event: AgentEvent): Promise<void> => {
      // The first event may open the answer (a new task's stream): the activated extensions are decided by now.
      input.extensions?.seal();
      if (handle.replied) {
        throw new A2AError('InvalidAgentResponse', 'The agent already answered with a message (reply), so there is no task to emit events to', { taskId });
      }
      if (event.kind === 'reply' && (await this.answer(input.task, event.message))) {
        handle.replied = true;
        return;
      }
      if (event.kind === 'refuse') {
        if (await this.engine.newTasks.refuse(taskId, event.error, event.blocking ?? event.error)) {
          handle.replied = true;
          return;
        }
        // A stored task: whoever waits in this process for the turn's outcome gets the error (a blocking send, the
        // turn's stream after the events it had); the task fails (below), for everyone else.
        this.engine.settleFailed(taskId, event.blocking ?? event.error);
        this.engine.hub.failTurn(taskId, event.error, this.engine.peek(taskId)?.lastSequence ?? 0);
      }
      try {
        const lifecycle = this.toLifecycle(input.task, event);
        const applied = await this.engine.apply(taskId, lifecycle, false, handle);
        observation?.event(lifecycle);
        if (isSettled(applied.record.task.status.state)) handle.settled = true;
      } catch (error) {
        if (error instanceof TransitionFailure) {
          throw new A2AError('InvalidAgentResponse', `The agent emitted an invalid event: ${error.message}`, { taskId });
        }
        // Another process holds the task now (it settled it or took it over): this run is over.
        if (error instanceof LeaseLostError) handle.abort(error);
        throw error;
      }
    };
    return new RunEmitter(commit, handle);
  }

  /** Answers a held-back new task with a message (no task: the message names only the context); false when the task is stored. */
  private answer(task: Task, say: Say): Promise<boolean> {
    // A quick no for a stored task; the engine decides under the task's lock otherwise.
    if (this.engine.peek(task.id)?.version !== 0) return Promise.resolve(false);
    const { taskId: _ignored, ...message } = build.agentMessage(say, { contextId: task.contextId }, this.newId);
    return this.engine.newTasks.answer(task.id, message);
  }

  /** Fills an agent event in with the task's ids (see {@link lifecycleOf}). */
  toLifecycle(task: Pick<Task, 'id' | 'contextId'>, event: AgentEvent): LifecycleEvent {
    return lifecycleOf(task, event, this.newId);
  }
}
