import type { AgentExecutor, RequestContext } from '@a2a-js/sdk/server';
import type { AgentContext } from '@taskwire/core';
import { AdapterEventBus } from './event-bus.js';
import { RunPump } from './run-pump.js';
import { fromJsState } from './shapes.js';

/** What every run of one adapted executor shares (see `fromA2AExecutor`). */
export interface RunSettings {
  readonly executor: AgentExecutor;
  readonly cancelGraceMs: number;
  /** The executor's `RequestContext` of a run (`request` carries the a2a-js user message). */
  readonly requestContext: (ctx: AgentContext) => RequestContext;
}

/**
 * One run of an executor: `execute(requestContext, eventBus)`, its events
 * committed in order by a {@link RunPump}, until `execute` settles, the
 * executor calls `finished()`, or (after a cancel) the grace has passed.
 * The run is its own abort listener and bus sink, so a run makes no
 * closures of its own.
 */
export class ExecutorRun {
  readonly bus: AdapterEventBus;
  private readonly pump: RunPump;
  private readonly ended: Promise<void>;
  private end!: () => void;
  private thrown: { error: unknown } | undefined = undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private over = false;

  private readonly requestContext: RequestContext;

  constructor(
    private readonly settings: RunSettings,
    private readonly ctx: AgentContext,
  ) {
    this.ended = new Promise<void>((resolve) => (this.end = resolve));
    this.requestContext = settings.requestContext(ctx);
    this.pump = new RunPump(ctx, fromJsState(this.requestContext.task?.status?.state));
    this.bus = new AdapterEventBus(this);
  }

  /** Runs the executor to its end (see the class); rejects with what the run must fail with. */
  async run(): Promise<void> {
    const { ctx, settings, requestContext } = this;
    const signal = ctx.signal;
    signal.addEventListener('abort', this, { once: true });
    try {
      try {
        Promise.resolve(settings.executor.execute(requestContext, this.bus)).then(this.end, (error: unknown) => this.failed(error));
      } catch (error) {
        this.failed(error);
      }
      await this.ended;
      await this.pump.drained();
    } finally {
      // The listener stays on the run's own signal (removing it costs more than it saves); `over` silences it.
      this.over = true;
      clearTimeout(this.graceTimer);
    }
    if (this.pump.failure) throw this.pump.failure;
    if (this.thrown && !signal.aborted && !this.pump.answered) {
      const error = this.thrown.error;
      await ctx.fail(`Agent execution error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The bus's sink: one published event. */
  event(event: Parameters<RunPump['push']>[0]): void {
    this.pump.push(event);
  }

  /** The bus's sink: `finished()`. */
  finished(): void {
    this.end();
  }

  /** The run's signal aborted (a cancel, or the service closing): the executor is told; closing ends the run at once. */
  handleEvent(): void {
    if (this.over) return;
    if ((this.ctx.signal.reason as Error | undefined)?.name === 'ServiceClosing') this.end();
    else this.graceTimer = setTimeout(this.end, this.settings.cancelGraceMs);
    const taskId = this.ctx.task.id;
    void Promise.resolve()
      .then(() => this.settings.executor.cancelTask(taskId, this.bus))
      .catch(() => undefined);
  }

  private failed(error: unknown): void {
    this.thrown = { error };
    this.end();
  }
}
