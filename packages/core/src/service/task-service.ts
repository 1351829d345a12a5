import { A2AError, taskNotFound } from '../errors.js';
import type { ParsedParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import { RunObserver } from '../observability/run-observer.js';
import { measuredStore } from '../observability/store-metrics.js';
import { resolveTelemetry, type Telemetry } from '../observability/telemetry.js';
import { PushConfigMethods, pushNotSupported, pushSupported } from './push-configs.js';
import { isSettled, type AgentCard, type SendMessageRequest, type Task } from '../schema/index.js';
import { answerTask } from '../store/list-tasks.js';
import type { TaskHead, TaskRecord } from '../store/task-store.js';
import { AgentRunner } from './agent-run.js';
import { linkCoordinator, sharedLeases } from './cluster-link.js';
import { ownerOf, type CallContext, type StreamEvent } from '../calls.js';
import { TaskEngine } from './task-engine.js';
import { DEFAULT_NEW_TASK_WINDOW_MS, TaskIntake } from './task-intake.js';
import { settledAnywhere, subscribeToTask } from './task-stream.js';
import { openSendStream } from './send-stream.js';
import { randomId } from '../random-id.js';
import { cancelTask } from './task-cancel.js';
import { extendedCardFor } from './extended-card.js';
import { parseParams, type A2AHandlers, type TaskServiceOptions } from './service-options.js';
import { requireStreaming } from './streaming-capability.js';
import { requireExtensions } from '../extensions.js';
import { beginSend, settledTask, type SendHost } from './idempotent-sends.js';
import { DEFAULT_MAX_LONG_POLL_MS, listedWithGenerations, pollGeneration, requireServedVersion, speaksNext, withGeneration, withGenerations } from './generation.js';

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
  /** Where the service and the transports serving it send spans and metrics (see `TaskServiceOptions.telemetry`). */
  readonly telemetry: Telemetry;
  private readonly observer: RunObserver;
  private readonly runner: AgentRunner;
  private readonly intake: TaskIntake;
  private readonly runs = new Set<Promise<void>>();
  private readonly push: PushConfigMethods | undefined;
  private readonly sends: SendHost;

  constructor(private readonly options: TaskServiceOptions) {
    const newId = options.newId ?? randomId;
    const window = options.newTaskWindowMs ?? DEFAULT_NEW_TASK_WINDOW_MS;
    if (!(window >= 0 && window < Infinity)) throw new RangeError(`TaskService: newTaskWindowMs must be a finite number of ms, 0 or more (got ${window})`);
    this.telemetry = resolveTelemetry(options.telemetry);
    this.observer = new RunObserver(this.telemetry, options.logger, options.card?.name);
    const leases = sharedLeases(options.coordinator);
    this.engine = new TaskEngine(measuredStore(options.store, this.telemetry), options.now, leases, options.logger, options.storeRetryMs);
    this.runner = new AgentRunner(this.engine, options.agent, newId, options.logger, this.observer);
    if (leases) linkCoordinator(options.coordinator!, leases, this.engine, this.runner, this.runs, options.logger);
    const host = { tasks: options.store, hub: this.engine.hub, newId, visible: this.visible.bind(this), logger: options.logger };
    this.push = pushSupported(options.card, options.push) ? new PushConfigMethods(options.push, host) : undefined;
    if (options.push && !this.push) options.logger?.warn({}, 'Taskwire: the push option is ignored because the card does not set capabilities.pushNotifications: true');
    this.intake = new TaskIntake({
      engine: this.engine,
      runner: this.runner,
      store: options.store,
      newId,
      unknownTaskId: options.unknownTaskId,
      newTaskWindowMs: window,
      push: () => this.requirePush(),
      runs: this.runs,
      logger: options.logger,
      observer: this.observer,
    });
    this.sends = { honourKeys: this.servesNext, get: (id) => this.engine.get(id), begin: (p, c) => this.intake.begin(p, c) };
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
      requireServedVersion(context, this.servesNext);
      parsed = parseParams(method, params);
      if (method !== 'GetExtendedAgentCard') requireExtensions(this.options.card, context.extensions);
    } catch (error) {
      return Promise.reject(error);
    }
    const authorize = this.options.authorize;
    if (authorize) return Promise.resolve(authorize({ method, params: parsed, context })).then(() => handler.call(this, parsed, context));
    return handler.call(this, parsed, context);
  }

  /** Validates `params` for a stream `method` and opens the stream. */
  async stream(method: StreamMethodName, params: unknown, context: CallContext = {}): Promise<AsyncIterable<StreamEvent>> {
    const handler = this[method] as (p: unknown, c: CallContext) => Promise<AsyncIterable<StreamEvent>>;
    requireServedVersion(context, this.servesNext);
    const parsed = parseParams(method, params);
    requireExtensions(this.options.card, context.extensions);
    await this.options.authorize?.({ method, params: parsed, context });
    const events = await handler.call(this, parsed, context);
    return speaksNext(context) ? withGenerations(events) : events;
  }

  async SendMessage(params: SendMessageRequest, context: CallContext): Promise<ResultOf<'SendMessage'>> {
    const historyLength = params.configuration?.historyLength;
    const start = await beginSend(this.sends, params, context);
    if ('settled' in start) return { task: this.answer(start.settled, context, historyLength) };
    const { started } = start;
    const taskId = started.record.task.id;
    // A keyed send sent again waits for its task as the first send does; any other duplicate answers at once.
    if ((started.duplicate && !start.retried) || params.configuration?.returnImmediately || isSettled(started.record.task.status.state)) {
      started.run();
      const record = (await this.engine.get(taskId)) ?? started.record;
      return { task: this.answer(record, context, historyLength) };
    }
    // Wait on the engine's settled waiter (registered before the run starts), not a hub subscription.
    const settled = this.engine.whenSettled(taskId, context.signal);
    started.run();
    const outcome = await (this.options.coordinator?.shared ? settledAnywhere(this.engine, started.record, settled, context.signal) : settled);
    if (!outcome) throw new A2AError('Internal', 'The call was aborted before the task settled');
    return outcome.message ? { message: outcome.message } : { task: this.answer(outcome.record, context, historyLength) };
  }

  async SendStreamingMessage(params: SendMessageRequest, context: CallContext): Promise<AsyncIterable<StreamEvent>> {
    requireStreaming(this.options.card);
    const snapshot = (task: Task) => this.project(task, params.configuration?.historyLength);
    const start = await beginSend(this.sends, params, context);
    if ('settled' in start) return settledTask(start.settled, snapshot);
    return openSendStream(this.engine, start.started, snapshot, context, this.options.newTaskWindowMs ?? DEFAULT_NEW_TASK_WINDOW_MS);
  }

  async GetTask(params: ParsedParamsOf<'GetTask'>, context: CallContext): Promise<Task> {
    const record = await this.visible(params.id, context, params.tenant);
    const current = params.currentGeneration;
    if (current === undefined || !speaksNext(context) || record.lastSequence > current) return this.answer(record, context, params.historyLength);
    const read = () => this.visible(params.id, context, params.tenant);
    const polled = await pollGeneration(this.engine.hub, params.id, current, read, context.signal, this.options.protocol?.maxLongPollMs ?? DEFAULT_MAX_LONG_POLL_MS);
    return this.answer(polled, context, params.historyLength);
  }

  async ListTasks(params: ParsedParamsOf<'ListTasks'>, context: CallContext): Promise<ResultOf<'ListTasks'>> {
    const { tenant, ...query } = params;
    const page = await this.options.store.list({
      ...query,
      owner: ownerOf(context, tenant),
      historyLength: query.historyLength ?? this.options.defaultHistoryLength,
    });
    return listedWithGenerations(page, context);
  }

  async CancelTask(params: ParsedParamsOf<'CancelTask'>, context: CallContext): Promise<Task> {
    const host = {
      engine: this.engine,
      runner: this.runner,
      observer: this.observer,
      graceMs: this.options.cancelGraceMs ?? this.options.agent.cancelGraceMs ?? 0,
      requestAbort: this.options.coordinator?.requestAbort?.bind(this.options.coordinator),
      visible: (id: string, c: CallContext) => this.visible(id, c, params.tenant),
      answer: (record: TaskRecord, c: CallContext) => this.answer(record, c),
    };
    return cancelTask(host, params.id, context);
  }

  async SubscribeToTask(params: ParsedParamsOf<'SubscribeToTask'>, context: CallContext): Promise<AsyncIterable<StreamEvent>> {
    requireStreaming(this.options.card);
    return subscribeToTask(this.engine, await this.placed(params, context), {
      afterSequence: params.afterSequence,
      snapshot: (task) => this.project(task),
      record: () => this.visible(params.id, context, params.tenant),
      signal: context.signal,
    });
  }

  /**
   * Resumes a SendStreamingMessage stream that dropped, after the last
   * event its client has (`afterSequence`): SubscribeToTask of the
   * message's task, except that it ends where the message's stream would
   * have (at the first terminal or interrupted state after that point, and
   * at once when the event at `afterSequence` had ended it). For transports
   * that resume dropped streams themselves (the WebSocket binding, v0.3's
   * `tasks/resubscribe`); `params` are validated as SubscribeToTask's.
   */
  async resumeStreamingMessage(params: unknown, context: CallContext = {}): Promise<AsyncIterable<StreamEvent>> {
    requireStreaming(this.options.card);
    requireServedVersion(context, this.servesNext);
    const parsed = parseParams('SubscribeToTask', params);
    requireExtensions(this.options.card, context.extensions);
    await this.options.authorize?.({ method: 'SubscribeToTask', params: parsed, context });
    const events = await subscribeToTask(this.engine, await this.placed(parsed, context), {
      afterSequence: parsed.afterSequence,
      snapshot: (task) => this.project(task),
      record: () => this.visible(parsed.id, context, parsed.tenant),
      until: 'turn',
      signal: context.signal,
    });
    return speaksNext(context) ? withGenerations(events) : events;
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
    return extendedCardFor(this.options, context);
  }

  /**
   * Settles what a stopped process left behind: every task the store still
   * has as submitted or working (after a crash or kill, no agent runs it)
   * fails with an agent message saying the server stopped while it ran, so
   * clients and subscribers see an end instead of waiting forever.
   * Interrupted and terminal tasks are left as they are. Call it once after
   * opening a durable store and before serving; it needs a store with
   * `unsettled()` (the memory and file stores have it) and does nothing
   * otherwise. With a shared coordinator, only the tasks no live process
   * holds are failed (see `TaskCoordinator.recover`). Resolves the ids of
   * the tasks it failed.
   */
  async recover(): Promise<string[]> {
    const coordinator = this.options.coordinator;
    const failed = coordinator?.shared ? await coordinator.recover() : await this.runner.failAbandoned((await this.options.store.unsettled?.()) ?? []);
    if (failed.length > 0) this.options.logger?.warn({ taskIds: failed }, `Taskwire: failed ${failed.length} task(s) a stopped server left running`);
    return failed;
  }

  /** Waits for every agent run in progress to end (for tests and graceful shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs]);
  }

  /**
   * Drains the service before its process stops (SIGTERM): new messages get
   * a retryable error, runs get `graceMs` to finish; then every open stream
   * ends (its client resumes on another server, which delivers what
   * follows) and the runs left stop, as {@link close} does (their tasks
   * fail saying the server shut down).
   */
  async drain(graceMs: number): Promise<void> {
    this.intake.draining = true;
    this.options.coordinator?.drain?.();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.idle(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]).finally(() => clearTimeout(timer));
    this.engine.hub.closeAll();
    await this.close();
  }

  /** Aborts running agents and waits for their runs to end, then stops the push delivery. Does not close the stores. */
  async close(): Promise<void> {
    this.runner.abortAll();
    await this.idle();
    await this.push?.close();
  }

  private async visible(taskId: string, context: CallContext, tenant: string | undefined): Promise<TaskRecord> {
    const record = await this.engine.get(taskId);
    if (!record || record.owner !== ownerOf(context, tenant)) throw taskNotFound(taskId);
    return record;
  }

  /** Where a subscribe starts: with a resume point, the visible task's head alone (see `TaskEngine.head`); else its record. */
  private async placed(params: ParsedParamsOf<'SubscribeToTask'>, context: CallContext): Promise<TaskRecord | TaskHead> {
    const found = params.afterSequence === undefined ? await this.engine.get(params.id) : await this.engine.head(params.id);
    if (!found || found.owner !== ownerOf(context, params.tenant)) throw taskNotFound(params.id);
    return found;
  }

  /** Whether calls may negotiate A2A 1.1 (`protocol.v1_1`). */
  private get servesNext(): boolean {
    return this.options.protocol?.v1_1 === true;
  }

  /** A task answer: projected, with its generation when the call negotiated A2A 1.1. */
  private answer(record: TaskRecord, context: CallContext, historyLength?: number): Task {
    return withGeneration(this.project(record.task, historyLength), record, context);
  }

  private project(task: Task, historyLength?: number): Task {
    return answerTask(task, historyLength ?? this.options.defaultHistoryLength);
  }

  private requirePush(): PushConfigMethods {
    if (!this.push) throw pushNotSupported();
    return this.push;
  }
}
