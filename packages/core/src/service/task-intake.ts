import { A2AError, taskNotFound } from '../errors.js';
import { createTask } from '../lifecycle/index.js';
import type { RunObserver } from '../observability/run-observer.js';
import { callTraceOf } from '../observability/server-call.js';
import type { PushConfigMethods } from './push-configs.js';
import type { SendMessageRequest, Task } from '../schema/index.js';
import type { TaskRecord, TaskStore } from '../store/task-store.js';
import type { AgentRunner, Logger } from './agent-run.js';
import type { CallContext } from '../calls.js';
import { ownerOf } from '../calls.js';
import { ExtensionActivation } from '../extensions.js';
import type { TaskEngine } from './task-engine.js';
import { TransitionFailure } from './task-engine.js';
import { expectedGeneration, requireGeneration } from './generation.js';

/** Default of `TaskServiceOptions.newTaskWindowMs`. */
export const DEFAULT_NEW_TASK_WINDOW_MS = 5;

/** What {@link TaskIntake} works with (the service's parts). */
export interface IntakeHost {
  readonly engine: TaskEngine;
  readonly runner: AgentRunner;
  readonly store: TaskStore;
  readonly newId: () => string;
  readonly unknownTaskId: 'reject' | 'create' | undefined;
  readonly newTaskWindowMs: number;
  /** The push-config methods; throws PushNotificationNotSupported when push is off. */
  push(): PushConfigMethods;
  /** Every agent run in progress (the service waits for them when it closes). */
  readonly runs: Set<Promise<void>>;
  readonly logger: Logger | undefined;
  /** Telemetry of runs: a continuing message's span links to the task's origin. */
  readonly observer: RunObserver;
}

/** A message taken in: the task it goes to, and the agent's start. */
export interface Started {
  /**
   * The task after the message. Version 0 while a new task is held back
   * (not stored) until the agent's first event: see `TaskEngine.prepare`.
   */
  readonly record: TaskRecord;
  /**
   * The message was already on the task (same messageId) and nothing is
   * owed to it: nothing runs. (A message sent again whose task still waits
   * for its run, with nobody running it, is no duplicate: it starts that run.)
   */
  readonly duplicate: boolean;
  /** Starts the agent (nothing for a duplicate). */
  run(): void;
}

/**
 * Takes a SendMessage in: continues the task it names (the spec's taskId and
 * contextId rules, duplicates, terminal tasks refused) or makes a new one.
 * A new task with a server-made id is held back until the agent's first
 * event (one commit for both, and the agent may answer with a message
 * instead) unless it must be visible at once: `returnImmediately`, a push
 * config to attach, a client-chosen id, or an agent that has not emitted
 * within `newTaskWindowMs` of its start.
 */
export class TaskIntake {
  /** Set while the service drains: every message is refused with a retryable error. */
  draining = false;

  constructor(private readonly host: IntakeHost) {}

  /** Starts or continues the task a message names; the agent starts with {@link Started.run}. */
  async begin(params: SendMessageRequest, context: CallContext): Promise<Started> {
    if (this.draining) {
      throw new A2AError('Internal', 'This server is shutting down and takes no new messages; send it again (another server takes it)', { retryable: 'true' });
    }
    const { engine } = this.host;
    const message = params.message;
    const owner = ownerOf(context, params.tenant);
    const existing = message.taskId ? await this.host.store.get(message.taskId) : undefined;
    if (message.taskId && (existing === undefined || existing.owner !== owner)) {
      if (existing !== undefined || (this.host.unknownTaskId !== 'create' && !context.clientTaskIds)) throw taskNotFound(message.taskId);
    }
    // A2A 1.1's ifGenerationMatch: refused before anything is done, and checked again by the commit of the message.
    const generation = existing ? expectedGeneration(params, context) : undefined;
    if (existing && generation !== undefined) requireGeneration(existing, generation);
    const push = params.configuration?.taskPushNotificationConfig && (await this.host.push().fromMessage(params, owner));
    let record: TaskRecord;
    let duplicate = false;
    const traceparent = callTraceOf(context)?.traceparent;
    if (existing) {
      this.host.observer.continued(existing.trace, callTraceOf(context));
      const applied = await this.continueTask(existing, params, generation);
      record = applied.record;
      duplicate = applied.duplicate;
      // Sent again: when the answer to the first send was lost after its commit landed, nobody started the run it is owed.
      const owed = duplicate ? await engine.claimOwedRun(record.task.id, message.messageId, () => !this.host.runner.isRunning(record.task.id)) : undefined;
      if (owed) {
        record = owed;
        duplicate = false;
      }
    } else {
      const task = createTask(message, { taskId: message.taskId ?? this.host.newId(), contextId: message.contextId || this.host.newId(), timestamp: engine.timestamp() });
      const visibleAtOnce = message.taskId !== undefined || push !== undefined || params.configuration?.returnImmediately === true;
      // Active from its creation on: the run and settled waiters read it from memory.
      record = visibleAtOnce ? await engine.newTasks.create(task, owner, true, traceparent) : engine.newTasks.prepare(task, owner, traceparent);
    }
    if (push) {
      try {
        await push.attach(record.task.id, existing?.lastSequence ?? 0);
      } catch (error) {
        if (!duplicate) engine.deactivate(record.task.id);
        throw error;
      }
    }
    // A task resumed for its first message (sent again) is not a continuation.
    const isContinuation = existing !== undefined && record.task.history?.find((m) => m.role === 'ROLE_USER')?.messageId !== message.messageId;
    return { record, duplicate, run: () => (duplicate ? undefined : this.run(record, params, context, isContinuation)) };
  }

  /** Starts the agent on `record`; a held-back task it has not emitted for by then is stored after the window. */
  private run(record: TaskRecord, params: SendMessageRequest, context: CallContext, isContinuation: boolean): void {
    const { engine, runner } = this.host;
    const { message } = params;
    const taskId = record.task.id;
    const startedBy = callTraceOf(context)?.traceparent;
    const trace = startedBy !== undefined || record.trace !== undefined ? { startedBy, origin: record.trace } : undefined;
    const tenant = params.tenant || context.tenant || undefined;
    const input = { task: record.task, message, referencedTasks: [] as Task[], principal: context.principal, isContinuation, tenant, trace, extensions: activationOf(context) };
    // Without referenceTaskIds the agent starts at once, with no hop through a store read.
    const references = message.referenceTaskIds?.length ? this.references(message.referenceTaskIds, ownerOf(context, params.tenant)) : undefined;
    // A stored task was claimed for this run by the commit that made this record: the lease held here has its epoch
    // (alone on the store, none: the version stands in).
    const started = runner.start(input, { epoch: record.version > 0 ? (engine.leaseEpoch(taskId) ?? record.version) : undefined, references });
    this.host.runs.add(started);
    void started.then(() => this.host.runs.delete(started));
    // An agent that emits at once has claimed its task by now (the first commit starts synchronously): no timer then.
    if (engine.newTasks.isHeldBack(taskId)) this.storeAfterWindow(taskId);
  }

  /** Stores a held-back task alone once the window has passed without its first event (it must not stay invisible). */
  private storeAfterWindow(taskId: string): void {
    const { engine } = this.host;
    const timer = setTimeout(() => {
      engine.newTasks.persist(taskId).catch((error: unknown) => this.host.logger?.error({ taskId, error: String(error) }, 'could not store a new task'));
    }, this.host.newTaskWindowMs);
    const stop = () => clearTimeout(timer);
    engine.newTasks.whenCreated(taskId)?.then(stop, stop);
  }

  /** Applies the message to `existing`; `generation`: the task must still be at it when the message is committed. */
  private async continueTask(existing: TaskRecord, params: SendMessageRequest, generation: number | undefined) {
    const taskId = existing.task.id;
    const contextId = params.message.contextId;
    if (contextId && contextId !== existing.task.contextId) {
      throw new A2AError(
        'InvalidParams',
        `message.contextId ${contextId} does not match the context ${existing.task.contextId} of task ${taskId}; omit contextId or send the task's own`,
        { taskId },
      );
    }
    try {
      return await this.host.engine.apply(taskId, { message: params.message }, true, undefined, generation);
    } catch (error) {
      if (!(error instanceof TransitionFailure)) throw error;
      throw new A2AError('UnsupportedOperation', error.message, { taskId });
    }
  }

  private async references(ids: readonly string[], owner: string): Promise<Task[]> {
    const records = await Promise.all(ids.map((id) => this.host.store.get(id)));
    return records.filter((r): r is TaskRecord => r !== undefined && r.owner === owner).map((r) => r.task);
  }
}

/** The call's activation; a call that asked for extensions through a transport that reports none still shows them to the agent. */
function activationOf(context: CallContext): ExtensionActivation | undefined {
  return context.activation ?? (context.extensions?.length ? new ExtensionActivation(context.extensions) : undefined);
}
