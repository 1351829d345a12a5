import type { Agent, AgentContext } from '../agent/agent.js';
import { textOf } from '../agent/agent.js';
import type { AgentEvent } from '../agent/events.js';
import * as build from '../agent/events.js';
import { A2AError } from '../errors.js';
import type { LifecycleEvent } from '../lifecycle/index.js';
import type { Message, Task } from '../schema/index.js';
import { isSettled, isTerminal } from '../schema/index.js';
import type { Principal } from './call-context.js';
import type { TaskEngine } from './task-engine.js';
import { TransitionFailure } from './task-engine.js';

/** A logger a library can write to; every method is optional to implement as a no-op. */
export interface Logger {
  debug?(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

/** The abort reason of runs stopped by the service shutting down. */
export class ServiceClosing extends Error {
  override readonly name = 'ServiceClosing';
  constructor() {
    super('The server shut down while this task was running; send the request again');
  }
}

/** What one agent run needs. */
export interface RunInput {
  readonly task: Task;
  readonly message: Message;
  readonly referencedTasks: readonly Task[];
  readonly principal: Principal | undefined;
  readonly isContinuation: boolean;
}

/**
 * Runs agents and owns their abort controllers. A run turns the agent's
 * events into lifecycle events on the engine; when the agent returns without
 * a terminal or interrupted state the task completes, when it throws the
 * task fails with the error's message, and when the task is canceled the
 * run's signal aborts.
 */
export class AgentRunner {
  private readonly controllers = new Map<string, AbortController>();

  constructor(
    private readonly engine: TaskEngine,
    private readonly agent: Agent,
    private readonly newId: () => string,
    private readonly logger?: Logger,
  ) {}

  /** True while an agent run for `taskId` is in progress. */
  isRunning(taskId: string): boolean {
    return this.controllers.has(taskId);
  }

  /** Aborts the run of `taskId`, if any, with `reason`. */
  abort(taskId: string, reason: string): void {
    this.controllers.get(taskId)?.abort(new A2AError('UnsupportedOperation', reason));
  }

  /** Aborts every run (service shutdown); their tasks fail, saying the server stopped. */
  abortAll(): void {
    for (const controller of this.controllers.values()) controller.abort(new ServiceClosing());
  }

  /** Starts a run in the background; resolves when it has ended (never rejects). */
  start(input: RunInput): Promise<void> {
    const taskId = input.task.id;
    const controller = new AbortController();
    this.controllers.set(taskId, controller);
    return this.run(input, controller.signal).finally(() => {
      if (this.controllers.get(taskId) === controller) this.controllers.delete(taskId);
      this.engine.deactivate(taskId);
    });
  }

  private async run(input: RunInput, signal: AbortSignal): Promise<void> {
    const context = this.context(input, signal);
    let outcome: unknown;
    try {
      const result = this.agent(context);
      if (result && typeof (result as AsyncIterable<AgentEvent>)[Symbol.asyncIterator] === 'function') {
        for await (const event of result as AsyncIterable<AgentEvent>) {
          if (signal.aborted) break;
          await context.emit(event);
        }
      } else {
        await result;
      }
    } catch (error) {
      outcome = error;
    }
    await this.finish(input.task, signal, outcome);
  }

  /** Completes a task the agent left unsettled, or fails it after a throw. */
  private async finish(task: Task, signal: AbortSignal, error: unknown): Promise<void> {
    const current = await this.engine.get(task.id);
    if (!current || isTerminal(current.task.status.state)) return;
    const closing = signal.reason instanceof ServiceClosing;
    if (signal.aborted && !closing) return;
    if (closing) error = signal.reason;
    else if (error === undefined && isSettled(current.task.status.state)) return;
    const say =
      error === undefined
        ? undefined
        : closing
          ? (error as Error).message
          : `The agent failed: ${error instanceof Error ? error.message : String(error)}`;
    if (error !== undefined) this.logger?.warn('agent run failed', { taskId: task.id, error: String(error) });
    const state = error === undefined ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_FAILED';
    try {
      await this.engine.apply(task.id, this.toLifecycle(current.task, build.status(state, say)));
    } catch (finishError) {
      this.logger?.error('could not settle task after its run', { taskId: task.id, error: String(finishError) });
    }
  }

  private context(input: RunInput, signal: AbortSignal): AgentContext {
    const taskId = input.task.id;
    const emit = async (event: AgentEvent): Promise<void> => {
      try {
        await this.engine.apply(taskId, this.toLifecycle(input.task, event));
      } catch (error) {
        if (error instanceof TransitionFailure) {
          throw new A2AError('InvalidAgentResponse', `The agent emitted an invalid event: ${error.message}`, { taskId });
        }
        throw error;
      }
    };
    return {
      task: input.task,
      message: input.message,
      referencedTasks: input.referencedTasks,
      principal: input.principal,
      isContinuation: input.isContinuation,
      signal,
      text: textOf(input.message),
      emit,
      working: (m, o) => emit(build.working(m, o)),
      artifact: (a, o) => emit(build.artifact(a, o)),
      inputRequired: (m, o) => emit(build.inputRequired(m, o)),
      authRequired: (m, o) => emit(build.authRequired(m, o)),
      complete: (m, o) => emit(build.completed(m, o)),
      fail: (m, o) => emit(build.failed(m, o)),
      reject: (m, o) => emit(build.rejected(m, o)),
    };
  }

  /** Fills an agent event in with the task's ids. */
  toLifecycle(task: Pick<Task, 'id' | 'contextId'>, event: AgentEvent): LifecycleEvent {
    const ids = { taskId: task.id, contextId: task.contextId };
    if (event.kind === 'artifact') {
      return {
        artifactUpdate: {
          ...ids,
          artifact: event.artifact,
          ...(event.append !== undefined && { append: event.append }),
          ...(event.lastChunk !== undefined && { lastChunk: event.lastChunk }),
          ...(event.metadata && { metadata: event.metadata }),
        },
      };
    }
    const message = event.message === undefined ? undefined : build.agentMessage(event.message, ids, this.newId);
    return {
      statusUpdate: {
        ...ids,
        status: { state: event.state, ...(message && { message }) },
        ...(event.metadata && { metadata: event.metadata }),
      },
    };
  }
}
