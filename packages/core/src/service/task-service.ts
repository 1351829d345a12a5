import type { Agent } from '../agent/agent.js';
import { A2AError, taskNotFound } from '../errors.js';
import { createTask } from '../lifecycle/index.js';
import type { ParsedParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import { PushConfigMethods, pushNotSupported, pushSupported } from '../push/push-configs.js';
import type { AgentCard, SendMessageRequest, Task } from '../schema/index.js';
import { isSettled, isTerminal } from '../schema/index.js';
import { projectTask } from '../store/list-tasks.js';
import type { TaskRecord } from '../store/task-store.js';
import type { Logger } from './agent-run.js';
import { AgentRunner } from './agent-run.js';
import type { CallContext } from './call-context.js';
import { ownerOf } from './call-context.js';
import { TaskEngine, TransitionFailure } from './task-engine.js';
import type { StreamEvent } from './task-stream.js';
import { followTask, stateOf, subscribeToTask } from './task-stream.js';
import { randomId } from './random-id.js';
import type { A2AHandlers, TaskServiceOptions } from './service-options.js';
import { parseParams } from './service-options.js';

/**
 * The transport-free A2A service: implements every operation of the method
 * table over a {@link TaskStore} and an {@link Agent}. Transports call
 * {@link TaskService.unary} and {@link TaskService.stream}, which validate the
 * raw params against the table's schemas first (InvalidParams naming the bad
 * field). Stream methods check everything before they resolve, so an error
 * is thrown before the first event.
 */
export class TaskService implements A2AHandlers {
  readonly engine: TaskEngine;
  private readonly runner: AgentRunner;
  private readonly newId: () => string;
  private readonly runs = new Set<Promise<void>>();
  private readonly push: PushConfigMethods | undefined;

  constructor(private readonly options: TaskServiceOptions) {
    this.newId = options.newId ?? randomId;
    this.engine = new TaskEngine(options.store, options.now);
    this.runner = new AgentRunner(this.engine, options.agent, this.newId, options.logger);
    const host = { tasks: options.store, hub: this.engine.hub, newId: this.newId, visible: this.visible.bind(this), logger: options.logger };
    this.push = pushSupported(options.card, options.push) ? new PushConfigMethods(options.push, host) : undefined;
    if (options.push && !this.push) options.logger?.warn('Taskwire: the push option is ignored because the card does not set capabilities.pushNotifications: true');
  }

  /** The card the service was built with, if any. */
  get card(): AgentCard | undefined {
    return this.options.card;
  }

  /** Validates `params` for a unary `method` and calls it. */
  unary<M extends UnaryMethodName>(method: M, params: unknown, context: CallContext = {}): Promise<ResultOf<M>> {
    const handler = this[method] as (p: unknown, c: CallContext) => Promise<ResultOf<M>>;
    // Not async (one promise less per call); a validation error is still a rejection, never a throw.
    let parsed: unknown;
    try {
      parsed = parseParams(method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    return handler.call(this, parsed, context);
  }

  /** Validates `params` for a stream `method` and opens the stream. */
  async stream(method: StreamMethodName, params: unknown, context: CallContext = {}): Promise<AsyncIterable<StreamEvent>> {
    const handler = this[method] as (p: unknown, c: CallContext) => Promise<AsyncIterable<StreamEvent>>;
    return handler.call(this, parseParams(method, params), context);
  }

  async SendMessage(params: SendMessageRequest, context: CallContext): Promise<ResultOf<'SendMessage'>> {
    const started = await this.begin(params, context, true);
    const taskId = started.record.task.id;
    let record: TaskRecord | undefined;
    if (!started.duplicate && !params.configuration?.returnImmediately && !isSettled(started.record.task.status.state)) {
      // Wait on the engine's settled waiter (registered before the run starts), not a hub subscription.
      const settled = this.engine.whenSettled(taskId, context.signal);
      started.run();
      record = await settled;
      if (!record) throw new A2AError('Internal', 'The call was aborted before the task settled');
    } else {
      started.run();
      record = (await this.engine.get(taskId)) ?? started.record;
    }
    return { task: this.project(record.task, params.configuration?.historyLength) };
  }

  async SendStreamingMessage(params: SendMessageRequest, context: CallContext): Promise<AsyncIterable<StreamEvent>> {
    this.requireStreaming();
    const started = await this.begin(params, context, true);
    const { record } = started;
    const subscription = this.engine.hub.subscribe(record.task.id, record.lastSequence);
    started.run();
    const head = { sequence: record.lastSequence, response: { task: this.project(record.task, params.configuration?.historyLength) } };
    return followTask(this.engine, subscription, { head: [head], replayUntil: record.lastSequence, signal: context.signal });
  }

  async GetTask(params: ParsedParamsOf<'GetTask'>, context: CallContext): Promise<Task> {
    const record = await this.visible(params.id, context, params.tenant);
    return this.project(record.task, params.historyLength);
  }

  async ListTasks(params: ParsedParamsOf<'ListTasks'>, context: CallContext): Promise<ResultOf<'ListTasks'>> {
    const { tenant, ...query } = params;
    return this.options.store.list({
      ...query,
      owner: ownerOf(context, tenant),
      historyLength: query.historyLength ?? this.options.defaultHistoryLength,
    });
  }

  async CancelTask(params: ParsedParamsOf<'CancelTask'>, context: CallContext): Promise<Task> {
    const record = await this.visible(params.id, context, params.tenant);
    const state = record.task.status.state;
    if (state === 'TASK_STATE_CANCELED') return this.project(record.task);
    if (isTerminal(state)) {
      throw new A2AError('TaskNotCancelable', `Task ${params.id} is ${state}; only a task that has not finished can be canceled`, {
        taskId: params.id,
      });
    }
    try {
      const applied = await this.engine.apply(params.id, {
        statusUpdate: { taskId: params.id, contextId: record.task.contextId, status: { state: 'TASK_STATE_CANCELED' } },
      });
      this.runner.abort(params.id, `Task ${params.id} was canceled`);
      return this.project(applied.record.task);
    } catch (error) {
      if (!(error instanceof TransitionFailure)) throw error;
      const now = await this.visible(params.id, context, params.tenant);
      if (now.task.status.state === 'TASK_STATE_CANCELED') return this.project(now.task);
      throw new A2AError('TaskNotCancelable', `Task ${params.id} finished (${now.task.status.state}) before it could be canceled`, {
        taskId: params.id,
      });
    }
  }

  async SubscribeToTask(params: ParsedParamsOf<'SubscribeToTask'>, context: CallContext): Promise<AsyncIterable<StreamEvent>> {
    this.requireStreaming();
    const record = await this.visible(params.id, context, params.tenant);
    return subscribeToTask(this.engine, record, {
      afterSequence: params.afterSequence,
      snapshot: (task) => this.project(task),
      signal: context.signal,
    });
  }

  async CreateTaskPushNotificationConfig(params: ParsedParamsOf<'CreateTaskPushNotificationConfig'>, context: CallContext): Promise<ResultOf<'CreateTaskPushNotificationConfig'>> {
    return this.requirePush().create(params, context);
  }
  async GetTaskPushNotificationConfig(params: ParsedParamsOf<'GetTaskPushNotificationConfig'>, context: CallContext): Promise<ResultOf<'GetTaskPushNotificationConfig'>> {
    return this.requirePush().get(params, context);
  }
  async ListTaskPushNotificationConfigs(params: ParsedParamsOf<'ListTaskPushNotificationConfigs'>, context: CallContext): Promise<ResultOf<'ListTaskPushNotificationConfigs'>> {
    return this.requirePush().list(params, context);
  }
  async DeleteTaskPushNotificationConfig(params: ParsedParamsOf<'DeleteTaskPushNotificationConfig'>, context: CallContext): Promise<ResultOf<'DeleteTaskPushNotificationConfig'>> {
    return this.requirePush().delete(params, context);
  }

  async GetExtendedAgentCard(_params: ParsedParamsOf<'GetExtendedAgentCard'>, context: CallContext): Promise<ResultOf<'GetExtendedAgentCard'>> {
    if (!this.options.card?.capabilities.extendedAgentCard) {
      throw new A2AError('UnsupportedOperation', 'This agent does not offer an extended agent card');
    }
    const extended = this.options.extendedCard;
    if (!extended) throw new A2AError('ExtendedAgentCardNotConfigured');
    return typeof extended === 'function' ? extended(context) : extended;
  }

  /**
   * Settles what a stopped process left behind: every task the store still
   * has as submitted or working (after a crash or kill, no agent runs it)
   * fails with an agent message saying the server stopped while it ran, so
   * clients and subscribers see an end instead of waiting forever.
   * Interrupted and terminal tasks are left as they are. Call it once after
   * opening a durable store and before serving; it needs a store with
   * `unsettled()` (the memory and file stores have it) and does nothing
   * otherwise. Resolves the ids of the tasks it failed.
   */
  async recover(): Promise<string[]> {
    const failed = await this.runner.failAbandoned((await this.options.store.unsettled?.()) ?? []);
    if (failed.length > 0) this.options.logger?.warn(`Taskwire: failed ${failed.length} task(s) a stopped server left running`, { taskIds: failed });
    return failed;
  }

  /** Waits for every agent run in progress to end (for tests and graceful shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs]);
  }

  /** Aborts running agents and waits for their runs to end, then stops the push delivery. Does not close the stores. */
  async close(): Promise<void> {
    this.runner.abortAll();
    await this.idle();
    await this.push?.close();
  }

  /** Starts or continues the task a message names; returns it and a function that starts the agent. */
  private async begin(params: SendMessageRequest, context: CallContext, deferRun = false) {
    const message = params.message;
    const owner = ownerOf(context, params.tenant);
    let record: TaskRecord;
    let duplicate = false;
    let isContinuation = false;
    const existing = message.taskId ? await this.options.store.get(message.taskId) : undefined;
    if (message.taskId && (existing === undefined || existing.owner !== owner)) {
      if (existing !== undefined || (this.options.unknownTaskId !== 'create' && !context.clientTaskIds)) throw taskNotFound(message.taskId);
    }
    const push = params.configuration?.taskPushNotificationConfig && (await this.requirePush().fromMessage(params, owner));
    if (existing) {
      if (message.contextId && message.contextId !== existing.task.contextId) {
        throw new A2AError(
          'InvalidParams',
          `message.contextId ${message.contextId} does not match the context ${existing.task.contextId} of task ${existing.task.id}; omit contextId or send the task's own`,
          { taskId: existing.task.id },
        );
      }
      const applied = await this.continueTask(existing, params);
      record = applied.record;
      duplicate = applied.duplicate;
      isContinuation = true;
    } else {
      const taskId = message.taskId ?? this.newId();
      const contextId = message.contextId || this.newId();
      // Active from its creation commit on: the run and settled waiters read it from memory.
      record = await this.engine.create(createTask(message, { taskId, contextId, timestamp: this.engine.timestamp() }), owner, true);
    }
    if (push) {
      try {
        await push.attach(record.task.id, existing?.lastSequence ?? 0);
      } catch (error) {
        if (!duplicate) this.engine.deactivate(record.task.id);
        throw error;
      }
    }
    const run = () => {
      if (duplicate) return;
      const input = { task: record.task, message, referencedTasks: [] as Task[], principal: context.principal, isContinuation };
      // Without referenceTaskIds the agent starts at once, with no hop through a store read.
      const started = message.referenceTaskIds?.length
        ? this.references(message.referenceTaskIds, owner).then(
            (referencedTasks) => this.runner.start({ ...input, referencedTasks }),
            (error: unknown) => {
              this.engine.deactivate(record.task.id);
              this.options.logger?.error('could not read the referenced tasks; the agent was not started', { taskId: record.task.id, error: String(error) });
            },
          )
        : this.runner.start(input);
      this.runs.add(started);
      void started.then(() => this.runs.delete(started));
    };
    if (!deferRun) run();
    return { record, duplicate, run };
  }

  private async continueTask(existing: TaskRecord, params: SendMessageRequest) {
    const taskId = existing.task.id;
    try {
      return await this.engine.apply(taskId, { message: params.message }, true);
    } catch (error) {
      if (!(error instanceof TransitionFailure)) throw error;
      throw new A2AError('UnsupportedOperation', error.message, { taskId });
    }
  }

  private async references(ids: readonly string[] | undefined, owner: string): Promise<Task[]> {
    if (!ids?.length) return [];
    const records = await Promise.all(ids.map((id) => this.options.store.get(id)));
    return records.filter((r): r is TaskRecord => r !== undefined && r.owner === owner).map((r) => r.task);
  }

  private async visible(taskId: string, context: CallContext, tenant: string | undefined): Promise<TaskRecord> {
    const record = await this.engine.get(taskId);
    if (!record || record.owner !== ownerOf(context, tenant)) throw taskNotFound(taskId);
    return record;
  }



  private project(task: Task, historyLength?: number): Task {
    const n = historyLength ?? this.options.defaultHistoryLength;
    // Nothing to cut: the (immutable) task itself, not a copy of it.
    if (Object.isFrozen(task) && (task.history === undefined || (n !== 0 && (n === undefined || n >= task.history.length)))) return task;
    return projectTask(task, { historyLength: n, includeArtifacts: true });
  }

  private requireStreaming(): void {
    if (this.options.card && this.options.card.capabilities.streaming !== true) {
      throw new A2AError('UnsupportedOperation', 'This agent does not support streaming (capabilities.streaming is not true)');
    }
  }

  private requirePush(): PushConfigMethods {
    if (!this.push) throw pushNotSupported();
    return this.push;
  }
}
