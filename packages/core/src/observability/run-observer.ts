import type { LifecycleEvent } from '../lifecycle/index.js';
import type { Message, Task } from '../schema/index.js';
import { ATTR, INVOKE_AGENT, LINK_KIND } from './attributes.js';
import type { Instruments } from './instruments.js';
import type { Logger } from './logger.js';
import { traceFields } from './logger.js';
import { parseTraceparent, remoteSpan, withSpan } from './otel-context.js';
import type { Attributes, ContextLike, LinkLike, SpanLike } from './otel-types.js';
import { SPAN_KIND, SPAN_STATUS } from './otel-types.js';
import type { CallTrace } from './server-call.js';
import type { Telemetry } from './telemetry.js';

/** What starts an agent run, as its telemetry needs it. */
export interface RunStart {
  readonly task: Task;
  readonly message: Message;
  readonly isContinuation: boolean;
  /**
   * W3C traceparents: `startedBy`, the request that started (or continued)
   * this run; `origin`, the one stored with the task (the request that
   * created it).
   */
  readonly trace?: { readonly startedBy?: string | undefined; readonly origin?: string | undefined } | undefined;
}

const now = () => performance.now();

function link(traceparent: string | undefined, kind: string): LinkLike | undefined {
  const context = parseTraceparent(traceparent);
  return context && { context, attributes: { [ATTR.linkKind]: kind } };
}

/**
 * The telemetry of one agent run: an INTERNAL `invoke_agent` span (a child
 * of the request that started the run, linked to it and to the request that
 * created the task), span events for status changes, the run's duration
 * and lifecycle log lines. {@link end} once.
 */
export class RunObservation {
  private readonly started = now();
  private events = 0;
  readonly context: ContextLike | undefined;

  constructor(
    private readonly observer: RunObserver,
    private readonly task: Task,
    private readonly span: SpanLike | undefined,
    parent: ContextLike,
    private readonly instruments: Instruments | undefined,
    readonly logIds: Record<string, string>,
  ) {
    this.context = span && withSpan(parent, span);
  }

  /** Runs `fn` with the run's span active (so the agent's own spans nest under it). */
  with<T>(fn: () => T): T {
    return this.context ? this.observer.telemetry.with(this.context, fn) : fn();
  }

  /** Records one event the run committed. */
  event(event: LifecycleEvent): void {
    this.events++;
    if (this.span?.isRecording() && 'statusUpdate' in event) {
      this.span.addEvent('a2a.task.status', { [ATTR.taskState]: event.statusUpdate.status.state });
    }
  }

  /** Notes that the task was canceled by the call with `canceledBy` (a traceparent) while this run went on. */
  canceled(canceledBy: string | undefined): void {
    if (!this.span) return;
    this.span.addEvent('a2a.task.canceled');
    const by = link(canceledBy, LINK_KIND.canceledBy);
    if (by && this.span.addLink) this.span.addLink(by);
  }

  /** Ends the run: `task` as the run left it, `error` when the agent threw. */
  end(task: Task | undefined, error: unknown): void {
    const state = task?.status.state;
    const elapsed = now() - this.started;
    const metric: Attributes = { [ATTR.taskState]: state };
    if (error !== undefined) metric[ATTR.errorType] = error instanceof Error ? error.name : 'Error';
    this.instruments?.runDuration.record(elapsed, metric);
    if (this.span) {
      this.span.setAttributes({ [ATTR.taskState]: state, [ATTR.runEvents]: this.events });
      if (error instanceof Error) this.span.recordException(error);
      if (error !== undefined || state === 'TASK_STATE_FAILED') {
        this.span.setStatus({ code: SPAN_STATUS.ERROR, message: error instanceof Error ? error.message : `The task ended ${state}` });
      }
      this.span.end();
    }
    this.observer.ended(this.task.id, this);
    const fields = { taskId: this.task.id, contextId: this.task.contextId, state, durationMs: Math.round(elapsed), ...this.logIds };
    this.observer.logger?.info?.(error === undefined ? fields : { ...fields, error: String(error) }, 'agent run ended');
  }
}

/**
 * The telemetry of a service's agent runs, cancels and recoveries. Does
 * nothing (and allocates nothing) when there is no tracer, no meter and no
 * logger.
 */
export class RunObserver {
  private readonly running = new Map<string, RunObservation>();

  constructor(
    readonly telemetry: Telemetry,
    readonly logger: Logger | undefined,
    private readonly agentName: string | undefined,
  ) {}

  /** Starts a run's telemetry, or returns `undefined` when there is nothing to record. */
  start(run: RunStart): RunObservation | undefined {
    const tracer = this.telemetry.tracer();
    const instruments = this.telemetry.instruments();
    if (tracer === undefined && instruments === undefined && this.logger === undefined) return undefined;
    const startedBy = run.trace?.startedBy;
    const origin = run.trace?.origin;
    const parentSpan = parseTraceparent(startedBy);
    const parent = parentSpan ? withSpan(this.telemetry.active(), remoteSpan(parentSpan)) : this.telemetry.active();
    let span: SpanLike | undefined;
    if (tracer) {
      const links = [link(startedBy, LINK_KIND.startedBy), origin !== startedBy ? link(origin, LINK_KIND.taskOrigin) : undefined];
      const attributes: Attributes = {
        [ATTR.operationName]: INVOKE_AGENT,
        [ATTR.agentName]: this.agentName,
        [ATTR.taskId]: run.task.id,
        [ATTR.contextId]: run.task.contextId,
        [ATTR.conversationId]: run.task.contextId,
        [ATTR.messageId]: run.message.messageId,
        [ATTR.runContinuation]: run.isContinuation,
      };
      const name = this.agentName ? `${INVOKE_AGENT} ${this.agentName}` : INVOKE_AGENT;
      span = tracer.startSpan(name, { kind: SPAN_KIND.INTERNAL, attributes, links: links.filter((l) => l !== undefined) }, parent);
    }
    const ids = traceFields(span?.spanContext() ?? parentSpan);
    const observation = new RunObservation(this, run.task, span, parent, instruments, ids);
    this.running.set(run.task.id, observation);
    this.logger?.debug?.({ taskId: run.task.id, contextId: run.task.contextId, messageId: run.message.messageId, continuation: run.isContinuation, ...ids }, 'agent run started');
    return observation;
  }

  /** Called by a run's observation when it ends. */
  ended(taskId: string, observation: RunObservation): void {
    if (this.running.get(taskId) === observation) this.running.delete(taskId);
  }

  /** A cancel of `taskId` by `call`: the call's span links to the task's origin, a run in progress here notes it, and it is logged. */
  canceled(taskId: string, origin: string | undefined, call: CallTrace | undefined): void {
    call?.link(origin, LINK_KIND.taskOrigin);
    this.running.get(taskId)?.canceled(call?.traceparent);
    this.logger?.info?.({ taskId, ...traceFields(parseTraceparent(call?.traceparent)) }, 'task canceled');
  }

  /** A continuing message on `taskId`: its call's span links to the task's origin. */
  continued(origin: string | undefined, call: CallTrace | undefined): void {
    call?.link(origin, LINK_KIND.taskOrigin);
  }

  /**
   * A task a stopped process left running was failed by this one: a short
   * INTERNAL `recover_task` span linked to the request that created it, and
   * a log line.
   */
  recovered(taskId: string, origin: string | undefined): void {
    const tracer = this.telemetry.tracer();
    let span: SpanLike | undefined;
    if (tracer) {
      const from = link(origin, LINK_KIND.taskOrigin);
      span = tracer.startSpan('recover_task', { kind: SPAN_KIND.INTERNAL, attributes: { [ATTR.taskId]: taskId, [ATTR.taskState]: 'TASK_STATE_FAILED' }, links: from ? [from] : [] }, this.telemetry.active());
      span.end();
    }
    this.logger?.warn({ taskId, ...traceFields(span?.spanContext() ?? parseTraceparent(origin)) }, 'failed a task a stopped server left running');
  }
}
