import type { SendMessageRequest } from '@a2a-js/sdk';
import type { AgentExecutor, RequestContext, ServerCallContext, User } from '@a2a-js/sdk/server';
import type { Agent, AgentCard, AgentContext, Principal } from '@taskwire/core';
import { PlainCallContext } from './call-context.js';
import { ExecutorRun, type RunSettings } from './executor-run.js';
import { toJsMessage, toJsState, toJsTask } from './shapes.js';
import { v03RequestContext, type V03AgentExecutor, type V03RequestContext } from './v03-executor.js';

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
  /** The @a2a-js/sdk version the executor is written against: 1.x (the default); see {@link FromA2AExecutorV03Options} for 0.3. */
  readonly protocol?: '1.0';
}

/**
 * What {@link fromA2AExecutor} may be given for an @a2a-js/sdk 0.3 executor
 * (Google ADK's `A2AAgentExecutor` is one): `protocol: '0.3'`, and the
 * options of a 1.x executor but the classes (a 0.3 executor gets a plain
 * `V03RequestContext`: `userMessage` and `task` in the v0.3 JSON shapes,
 * `kind`-tagged parts, and `context` as a 1.x executor gets it).
 */
export interface FromA2AExecutorV03Options extends Omit<FromA2AExecutorOptions, 'protocol' | 'RequestContext' | 'ServerCallContext'> {
  readonly protocol: '0.3';
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
 * `statusUpdate` and `artifactUpdate` events update the task (an
 * `append: true` chunk of an artifact the task does not have yet is its
 * first chunk, as a2a-js's server creates it). An @a2a-js/sdk 0.3 executor,
 * such as Google ADK's `A2AAgentExecutor`, runs with `{ protocol: '0.3' }`:
 * it gets a 0.3 request context and its `kind`-tagged 0.3 events are read
 * with core's v0.3 converters, then taken as above. The orderings
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
export function fromA2AExecutor(executor: AgentExecutor, options?: FromA2AExecutorOptions): Agent;
/** An @a2a-js/sdk 0.3 executor (Google ADK's `A2AAgentExecutor`, say), run the same way: see {@link FromA2AExecutorV03Options}. */
export function fromA2AExecutor(executor: V03AgentExecutor, options: FromA2AExecutorV03Options): Agent;
export function fromA2AExecutor(executor: AgentExecutor | V03AgentExecutor, options: FromA2AExecutorOptions | FromA2AExecutorV03Options = {}): Agent {
  const declared = options.card && new Set((options.card.capabilities.extensions ?? []).map((extension) => extension.uri));
  const settings: RunSettings = {
    executor,
    cancelGraceMs: options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS,
    v03: options.protocol === '0.3',
    requestContext: (ctx) => makeRequestContext(ctx, options, declared),
  };
  const agent = (ctx: AgentContext): Promise<void> => new ExecutorRun(settings, ctx).run();
  return Object.assign(agent, { cancelGraceMs: settings.cancelGraceMs });
}

function makeRequestContext(ctx: AgentContext, options: FromA2AExecutorOptions | FromA2AExecutorV03Options, declared: ReadonlySet<string> | undefined): RequestContext | V03RequestContext {
  const taskId = ctx.task.id;
  const contextId = ctx.task.contextId;
  const message = toJsMessage(ctx.message);
  message.taskId = taskId;
  message.contextId = contextId;
  const request: SendMessageRequest = {
    tenant: (options.tenant ? options.tenant(ctx) : ctx.tenant) ?? '',
    message,
    configuration: undefined,
    metadata: undefined,
  };
  // A user option is asked at once, as before; the default user and the call context wait for the executor to read them.
  const call: CallOf = { ctx, options, declared, tenant: request.tenant || undefined, user: options.user?.(ctx.principal) };
  if (options.protocol === '0.3') return v03RequestContext(ctx, callContextOf(call));
  // a2a-js hands a follow-up turn the task still in its interrupted state, the user's message last in its history.
  // Taskwire's context has it moved on (submitted) and does not say which interruption it was: input-required, the usual one.
  const task = ctx.isContinuation ? { ...toJsTask(ctx.task), status: { state: toJsState('TASK_STATE_INPUT_REQUIRED'), message: undefined, timestamp: ctx.task.status.timestamp } } : undefined;
  const referenceTasks = ctx.referencedTasks.length > 0 ? ctx.referencedTasks.map(toJsTask) : [];
  if (options.RequestContext) return new options.RequestContext(request, taskId, contextId, callContextOf(call), task, referenceTasks);
  return new PlainRequestContext(request, taskId, contextId, call, task, referenceTasks) as unknown as RequestContext;
}

/** What a run's a2a-js call context is made from. */
interface CallOf {
  readonly ctx: AgentContext;
  readonly options: FromA2AExecutorOptions | FromA2AExecutorV03Options;
  readonly declared: ReadonlySet<string> | undefined;
  readonly tenant: string | undefined;
  /** The `user` option's user, when the option is given. */
  readonly user: User | undefined;
}

/** The a2a-js call context of a run: its user, tenant and requested extensions (those the card declares, with one). */
function callContextOf({ ctx, options, declared, tenant, user: given }: CallOf): ServerCallContext {
  const principal = ctx.principal;
  const user: User = given ?? (principal ? { isAuthenticated: true, userName: principal.id } : { isAuthenticated: false, userName: '' });
  const requested = ctx.extensions.requested.length > 0 ? ctx.extensions.requested : (ctx.message.extensions ?? []);
  const requestedExtensions = declared ? requested.filter((uri) => declared.has(uri)) : [...requested];
  if ('ServerCallContext' in options && options.ServerCallContext) return new options.ServerCallContext({ user, tenant, requestedExtensions, requestedVersion: '1.0' });
  return new PlainCallContext(user, tenant, requestedExtensions) as unknown as ServerCallContext;
}

/** The fields of a2a-js's RequestContext, without its class; `context` is made on first read. */
class PlainRequestContext {
  #call: CallOf;
  #context: ServerCallContext | undefined = undefined;

  constructor(
    readonly request: SendMessageRequest,
    readonly taskId: string,
    readonly contextId: string,
    call: CallOf,
    readonly task: RequestContext['task'],
    readonly referenceTasks: RequestContext['referenceTasks'],
  ) {
    this.#call = call;
  }

  get context(): ServerCallContext {
    return (this.#context ??= callContextOf(this.#call));
  }

  get userMessage(): SendMessageRequest['message'] {
    return this.request.message;
  }
}
