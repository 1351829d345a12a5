import type { SendMessageRequest } from '@a2a-js/sdk';
import type { AgentExecutionEvent, AgentExecutor, RequestContext, ServerCallContext, User } from '@a2a-js/sdk/server';
import type { Agent, AgentCard, AgentContext, Principal, TaskState } from '@taskwire/core';
import { A2AError, isTerminal } from '@taskwire/core';
import { AdapterEventBus } from './event-bus.js';
import { fromJsArtifact, fromJsMessage, fromJsState, toJsMessage, toJsState, toJsTask } from './shapes.js';

/** What {@link fromA2AExecutor} may be given. */
export interface FromA2AExecutorOptions {
  /**
   * a2a-js's `RequestContext` class (`import { RequestContext } from
   * '@a2a-js/sdk/server'`): pass it when the executor tests
   * `instanceof RequestContext`; the context is then made with it. Without
   * it the executor gets a plain object with the same fields.
   */
  readonly RequestContext?: typeof RequestContext;
  /** a2a-js's `ServerCallContext` class, for executors that test `instanceof` on `requestContext.context`. */
  readonly ServerCallContext?: typeof ServerCallContext;
  /**
   * The a2a-js `User` of a call (`requestContext.context.user`). Default:
   * an authenticated user named by the principal's id, or an
   * unauthenticated one when the call has no principal.
   */
  readonly user?: (principal: Principal | undefined) => User;
  /**
   * The card the service serves: with it the executor sees, as on a2a-js,
   * only the requested extensions the card declares
   * (`requestContext.context.requestedExtensions`); without it, all of them.
   */
  readonly card?: Pick<AgentCard, 'capabilities'>;
  /** The tenant the executor sees (`requestContext.context.tenant` and `request.tenant`). Default: the call's tenant, as a2a-js gives it. */
  readonly tenant?: (context: AgentContext) => string | undefined;
  /**
   * How long a CancelTask waits, in ms, for the executor to end the task
   * itself once `cancelTask(taskId, eventBus)` was called (its own canceled
   * status, with its message, is then what the client gets); past it the
   * task is canceled without it and the run ends. Default 2000.
   */
  readonly cancelGraceMs?: number;
}

/** The default of {@link FromA2AExecutorOptions.cancelGraceMs}. */
const DEFAULT_CANCEL_GRACE_MS = 2000;

/**
 * Turns an `@a2a-js/sdk` 1.x `AgentExecutor` into a Taskwire {@link Agent},
 * unchanged. Each run calls `execute(requestContext, eventBus)` with a
 * `RequestContext` carrying `taskId`, `contextId`, `userMessage` (a2a-js's
 * shapes), `task` on a follow-up turn (as a2a-js gives it: still in its
 * interrupted state, shown as input-required since Taskwire does not tell
 * input- from auth-required, with the user's message last in its history),
 * `referenceTasks`, and `context` (user, tenant, requested extensions). What the executor publishes maps
 * onto the run as the a2a-js server would take it: the first event must be
 * a `task` or a `message` (a `message` answers without a task); then
 * `statusUpdate` and `artifactUpdate` events update the task. The orderings
 * a2a-js 1.3.0 refuses get its answers: a status or artifact update first is
 * UnsupportedOperation (-32004) on a stream and Internal (-32603) on a
 * blocking send; a second `task` or `message` is UnsupportedOperation. An
 * executor that throws fails its task with `Agent execution error: <message>`.
 * CancelTask, from any transport or replica, aborts the run and calls
 * `cancelTask(taskId, eventBus)`. On the replica running the task, the
 * agent carries `cancelGraceMs`: the cancel waits that long for the executor
 * to end the task, as a2a-js waits for it, so its own canceled status (with
 * its message) is the one the client gets; a cancel made on another replica
 * cancels the task at once, and the executor's status is then dropped. The
 * run ends at the latest when the grace has passed (an executor that never
 * stops holds up neither the cancel nor a shutdown, which ends it at once).
 * Otherwise the run ends when `execute` settles or the executor calls
 * `finished()`, whichever comes first; a task left unsettled is then
 * completed.
 */
export function fromA2AExecutor(executor: AgentExecutor, options: FromA2AExecutorOptions = {}): Agent {
  const cancelGraceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  const agent = async (ctx: AgentContext): Promise<void> => {
    const taskId = ctx.task.id;
    const contextId = ctx.task.contextId;
    const request: SendMessageRequest = {
      tenant: (options.tenant ? options.tenant(ctx) : ctx.tenant) ?? '',
      message: { ...toJsMessage(ctx.message), taskId, contextId },
      configuration: undefined,
      metadata: undefined,
    };
    const requestContext = makeRequestContext(ctx, request, options);
    const bus = new AdapterEventBus();
    const run = new RunPump(ctx, fromJsState(requestContext.task?.status?.state));
    bus.on('event', (event) => run.push(event));
    const finished = new Promise<void>((resolve) => bus.on('finished', resolve));
    // Canceled: the executor is told, and has the grace to say so itself; the service closing ends the run at once.
    let aborted!: () => void;
    const abort = new Promise<void>((resolve) => (aborted = resolve));
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      if ((ctx.signal.reason as Error | undefined)?.name === 'ServiceClosing') aborted();
      else graceTimer = setTimeout(aborted, cancelGraceMs);
      void Promise.resolve()
        .then(() => executor.cancelTask(taskId, bus))
        .catch(() => undefined);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let thrown: { error: unknown } | undefined;
    try {
      const executed = Promise.resolve()
        .then(() => executor.execute(requestContext, bus))
        .catch((error: unknown) => void (thrown = { error }));
      await Promise.race([executed, finished, abort]);
      await run.drained();
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      clearTimeout(graceTimer);
    }
    if (run.failure) throw run.failure;
    if (thrown && !ctx.signal.aborted && !run.answered) {
      const error = thrown.error;
      await ctx.fail(`Agent execution error: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return Object.assign(agent, { cancelGraceMs });
}

function makeRequestContext(ctx: AgentContext, request: SendMessageRequest, options: FromA2AExecutorOptions): RequestContext {
  const principal = ctx.principal;
  const user: User = options.user?.(principal) ?? (principal ? { isAuthenticated: true, userName: principal.id } : { isAuthenticated: false, userName: '' });
  const requested = ctx.extensions.requested.length > 0 ? ctx.extensions.requested : (ctx.message.extensions ?? []);
  const declared = options.card && new Set((options.card.capabilities.extensions ?? []).map((extension) => extension.uri));
  const requestedExtensions = declared ? requested.filter((uri) => declared.has(uri)) : [...requested];
  const tenant = request.tenant || undefined;
  const callContext = options.ServerCallContext
    ? new options.ServerCallContext({ user, tenant, requestedExtensions, requestedVersion: '1.0' })
    : (plainCallContext(user, tenant, requestedExtensions) as unknown as ServerCallContext);
  // a2a-js hands a follow-up turn the task still in its interrupted state, the user's message last in its history.
  // Taskwire's context has it moved on (submitted) and does not say which interruption it was: input-required, the usual one.
  const task = ctx.isContinuation ? { ...toJsTask(ctx.task), status: { state: toJsState('TASK_STATE_INPUT_REQUIRED'), message: undefined, timestamp: ctx.task.status.timestamp } } : undefined;
  const referenceTasks = ctx.referencedTasks.map(toJsTask);
  const taskId = ctx.task.id;
  const contextId = ctx.task.contextId;
  if (options.RequestContext) return new options.RequestContext(request, taskId, contextId, callContext, task, referenceTasks);
  return {
    request,
    taskId,
    contextId,
    context: callContext,
    task,
    referenceTasks,
    get userMessage() {
      return request.message!;
    },
  } as RequestContext;
}

/** The fields and methods of a2a-js's ServerCallContext, as a plain object. */
function plainCallContext(user: User, tenant: string | undefined, requested: string[]) {
  let activated: string[] | undefined;
  let requestedExtensions: string[] | undefined = requested;
  const state = new Map<string, unknown>();
  return {
    tenant,
    user,
    requestedVersion: '1.0',
    state,
    get requestedExtensions() {
      return requestedExtensions;
    },
    get activatedExtensions() {
      return activated;
    },
    addActivatedExtension(uri: string) {
      if (!activated?.includes(uri)) activated = [...(activated ?? []), uri];
    },
    setRequestedExtensions(extensions: string[] | undefined) {
      requestedExtensions = extensions;
    },
    setTenant(value: string) {
      this.tenant = value;
    },
  };
}

type Pattern = 'undetermined' | 'message' | 'task';

/**
 * Commits what an executor publishes, one event at a time and in order (the
 * bus is synchronous; commits are not), following a2a-js's stream pattern.
 */
class RunPump {
  private pattern: Pattern = 'undetermined';
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The first error of a commit that the run must end with. */
  failure: unknown = undefined;

  /** `given` is the state of the task the executor was handed (a follow-up turn's), which its Task event may repeat. */
  constructor(
    private readonly ctx: AgentContext,
    private readonly given: TaskState | undefined,
  ) {}

  /** True when the executor answered with a message (no task) or the call was refused. */
  get answered(): boolean {
    return this.pattern === 'message' || this.stopped;
  }

  push(event: AgentExecutionEvent): void {
    this.chain = this.chain.then(() => this.commit(event));
  }

  drained(): Promise<void> {
    return this.chain;
  }

  private async commit(event: AgentExecutionEvent): Promise<void> {
    const ctx = this.ctx;
    // After a cancel the executor's events still go in (its own canceled status, within the grace); once the task is
    // final they are refused, and dropped below.
    if (this.stopped) return;
    try {
      await this.apply(event);
    } catch (error) {
      if (ctx.signal.aborted) return;
      this.stopped = true;
      this.failure ??= error;
    }
  }

  private async apply(event: AgentExecutionEvent): Promise<void> {
    const ctx = this.ctx;
    if (this.pattern === 'undetermined') {
      if (event.kind === 'message') {
        this.pattern = 'message';
        const message = fromJsMessage(event.data);
        return ctx.reply({ parts: message.parts, ...(message.metadata && { metadata: message.metadata }), ...(message.extensions && { extensions: message.extensions }) });
      }
      if (event.kind === 'task') {
        this.pattern = 'task';
        const state = fromJsState(event.data.status?.state);
        // A Task event sets the scene; a state of its own (not the one the executor was handed) is a status change.
        if (state && state !== 'TASK_STATE_SUBMITTED' && state !== this.given && state !== ctx.task.status.state) return this.status(state, event.data.status?.message, undefined);
        return;
      }
      this.stopped = true;
      return ctx.refuse(new A2AError('UnsupportedOperation', `Received ${event.kind} before initial 'Message'/'Task' event.`), {
        blocking: new A2AError('Internal', `The agent published a ${event.kind} before its Task or Message event`),
      });
    }
    // A message answered the call: there is no task for anything after it.
    if (this.pattern === 'message') return;
    if (event.kind === 'statusUpdate') {
      const state = fromJsState(event.data.status?.state);
      if (state === undefined) throw new A2AError('InvalidAgentResponse', 'The agent published a status update without a state');
      return this.status(state, event.data.status?.message, event.data.metadata);
    }
    if (event.kind === 'artifactUpdate') {
      const { artifact, append, lastChunk, metadata } = event.data;
      if (!artifact) throw new A2AError('InvalidAgentResponse', 'The agent published an artifact update without an artifact');
      return ctx.emit({ kind: 'artifact', artifact: fromJsArtifact(artifact), append: append || undefined, lastChunk: lastChunk || undefined, metadata });
    }
    this.stopped = true;
    return ctx.refuse(new A2AError('UnsupportedOperation', `Stream ordering violation: received ${event.kind} in task lifecycle stream.`));
  }

  private async status(state: TaskState, message: Parameters<typeof fromJsMessage>[0] | undefined, metadata: Record<string, unknown> | undefined): Promise<void> {
    const say = message ? (({ role: _role, messageId, ...rest }) => ({ ...rest, messageId }))(fromJsMessage(message)) : undefined;
    await this.ctx.emit({ kind: 'status', state, message: say, metadata });
    if (isTerminal(state)) this.stopped = true;
  }
}
