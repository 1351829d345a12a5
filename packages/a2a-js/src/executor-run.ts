import type { AgentExecutor, RequestContext } from '@a2a-js/sdk/server';
import type { AgentContext } from '@taskwire/core';
import { onAbort } from '@taskwire/core';
import { AdapterEventBus } from './event-bus.js';
import { RunPump } from './run-pump.js';
import { toJsEvent, type V03AgentExecutor, type V03RequestContext } from './v03-executor.js';

/** What every run of one adapted executor shares (see `fromA2AExecutor`). */
export interface RunSettings {
  /** A 1.x executor, or a 0.3 one (its request context then a {@link V03RequestContext}). */
  readonly executor: AgentExecutor | V03AgentExecutor;
  readonly cancelGraceMs: number;
  /** True for an @a2a-js/sdk 0.3 executor: on a follow-up turn its first event may be an update (see {@link RunPump}). */
  readonly v03: boolean;
  /** The executor's `RequestContext` of a run, in the shape of its a2a-js version. */
  readonly requestContext: (ctx: AgentContext) => RequestContext | V03RequestContext;
}

/**
 * One run of an executor: `execute(requestContext, eventBus)`, its events
 * committed in order by a {@link RunPump}, until `execute` settles, the
 * executor calls `finished()`, or (after a cancel) the grace has passed.
 * The run is its own bus sink and is told of an abort through core's
 * `onAbort`, so its task's `AbortSignal` is never made (the executor has no
 * use for it); a run that ends before `run` waits for it makes no promise
 * for its end.
 */
export class ExecutorRun {
  readonly bus: AdapterEventBus;
  private readonly pump: RunPump;
  /** Resolves `ended`, once something waits for it. */
  private wake: (() => void) | undefined = undefined;
  /** True once the run has ended (execute settled, `finished()`, the grace passed, or the service closing). */
  private done = false;
  private thrown: { error: unknown } | undefined = undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private over = false;

  private readonly requestContext: RequestContext | V03RequestContext;

  constructor(
    private readonly settings: RunSettings,
    private readonly ctx: AgentContext,
  ) {
    this.requestContext = settings.requestContext(ctx);
    // Only a follow-up turn's task is handed over, always as input-required (see fromA2AExecutor).
    this.pump = new RunPump(ctx, ctx.isContinuation ? 'TASK_STATE_INPUT_REQUIRED' : undefined, settings.v03 && ctx.isContinuation);
    this.bus = new AdapterEventBus(this);
  }

  /** Runs the executor to its end (see the class); rejects with what the run must fail with. */
  async run(): Promise<void> {
    const { ctx, settings, requestContext } = this;
    onAbort(ctx, this.aborted);
    try {
      try {
        Promise.resolve((settings.executor as AgentExecutor).execute(requestContext as RequestContext, this.bus)).then(this.end, this.failed);
      } catch (error) {
        this.failed(error);
      }
      if (!this.done) await new Promise<void>((resolve) => (this.wake = resolve));
      const drained = this.pump.drained();
      if (drained !== undefined) await drained;
    } finally {
      // An abort after this is not the executor's business any more: `over` silences it.
      this.over = true;
      if (this.graceTimer !== undefined) clearTimeout(this.graceTimer);
    }
    if (this.pump.failure) throw this.pump.failure;
    if (this.thrown && !this.pump.answered && !ctx.signal.aborted) {
      const error = this.thrown.error;
      await ctx.fail(`Agent execution error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The bus's sink: one published event (a 0.3 executor's read as 0.3). */
  event(event: Parameters<typeof toJsEvent>[0]): void {
    this.pump.push(toJsEvent(event));
  }

  /** The bus's sink: `finished()`. */
  finished(): void {
    this.end();
  }

  /** Ends the run (its events still drain); later calls do nothing. */
  private readonly end = (): void => {
    if (this.done) return;
    this.done = true;
    this.wake?.();
  };

  /** The run aborted (a cancel, or the service closing): the executor is told; closing ends the run at once. */
  private readonly aborted = (reason: unknown): void => {
    if (this.over) return;
    if ((reason as Error | undefined)?.name === 'ServiceClosing') this.end();
    else this.graceTimer = setTimeout(this.end, this.settings.cancelGraceMs);
    const taskId = this.ctx.task.id;
    void Promise.resolve()
      .then(() => (this.settings.executor as AgentExecutor).cancelTask(taskId, this.bus))
      .catch(() => undefined);
  };

  private readonly failed = (error: unknown): void => {
    this.thrown = { error };
    this.end();
  };
}
