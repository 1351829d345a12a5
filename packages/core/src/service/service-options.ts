import type { Agent } from '../agent/agent.js';
import type { Authorize } from '../auth.js';
import { invalidParams } from '../errors.js';
import type { MethodName, ParsedParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import { METHODS } from '../methods.js';
import { readProtoJsonParams } from '../protojson/normalize.js';
import type { PushOptions } from '../push/push-config-store.js';
import type { AgentCard } from '../schema/index.js';
import type { TelemetrySetting } from '../observability/telemetry.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskCoordinator } from './coordination.js';
import type { Logger } from './agent-run.js';
import type { CallContext, StreamEvent } from '../calls.js';

/** How a {@link TaskService} is built. */
export interface TaskServiceOptions {
  readonly store: TaskStore;
  readonly agent: Agent;
  /** The public card; its capabilities gate streaming, push and the extended card. */
  readonly card?: AgentCard;
  /** The card served by GetExtendedAgentCard (needs `capabilities.extendedAgentCard`; served to authenticated callers only, on every transport). */
  readonly extendedCard?: AgentCard | ((context: CallContext) => AgentCard | Promise<AgentCard>);
  /**
   * Decides whether the caller may make a call, after its params are
   * validated and before anything runs: resolve to allow, throw (a
   * `PermissionDenied` A2AError) to refuse. `scopePolicy` from
   * `@taskwire/auth` builds one from scopes per method and per skill.
   * Default: every authenticated caller may call every method.
   */
  readonly authorize?: Authorize;
  /** History returned when a request leaves historyLength unset; default: all of it. */
  readonly defaultHistoryLength?: number;
  /**
   * What a message naming an unknown taskId does: `reject` (the v1.0 rule,
   * TaskNotFound) or `create` a task with that id (for v0.3 clients that
   * pick task ids themselves). Default `reject`; a call can ask for
   * `create` with `CallContext.clientTaskIds`.
   */
  readonly unknownTaskId?: 'reject' | 'create';
  /**
   * Push notifications: where configs live and what sends them. The four
   * push-config methods (and a config in SendMessage) work only with this
   * set and, when there is a card, `capabilities.pushNotifications: true`;
   * otherwise they answer PushNotificationNotSupported.
   */
  readonly push?: PushOptions;
  /**
   * Several processes serving one shared store (replicas behind a load
   * balancer): the coordinator that wakes this process up for the others'
   * commits, keeps the leases of the runs here and settles the tasks of a
   * process that stopped (`createPostgresCoordinator` from
   * `@taskwire/postgres`). Default: this process is alone on its store.
   * The service does not close it: close it after the service.
   */
  readonly coordinator?: TaskCoordinator;
  /**
   * A structured (pino-shaped) logger: task lifecycle at `debug`/`info`
   * (with task ids and trace ids), recovered failures at `warn`, unexpected
   * ones at `error`. Taskwire never writes to `console`.
   */
  readonly logger?: Logger;
  /**
   * OpenTelemetry: by default the SDK the process registered through
   * `@opentelemetry/api` (nothing is recorded when none is); providers of
   * your own; or `false` for none. The transports serving this service use
   * it too. See {@link TelemetrySetting}.
   */
  readonly telemetry?: TelemetrySetting;
  /** Makes task, context and message ids (default: random version 4 UUIDs). */
  readonly newId?: () => string;
  /** The clock for status timestamps (default: the system clock). */
  readonly now?: () => Date;
  /**
   * How long a new task may wait, unstored, for the agent's first event, in
   * ms (default 5). An event within the window is stored together with the
   * new task in one commit (one store round trip per request instead of
   * two), and an agent may answer with a message instead (`ctx.reply`), in
   * which case no task is stored at all. Past the window the task is stored
   * on its own, so a slow agent's task is visible (GetTask, ListTasks)
   * while it works (a stream's first item waits at most this long, plus
   * the commit). `returnImmediately`, a push config in the request and a
   * client-chosen task id store the task at once. `0` still lets an agent
   * that emits without awaiting anything first use the one commit.
   */
  readonly newTaskWindowMs?: number;
  /**
   * How long a running agent's commit is retried while the store says it is
   * unreachable (a dropped connection, a database restart), in ms: the run
   * waits and goes on once the store is back (a commit whose outcome was
   * unknown is not applied twice). Default 15,000. With a shared
   * coordinator the run's lease bounds it instead (a replica that cannot
   * renew its lease stops its runs).
   */
  readonly storeRetryMs?: number;
  /**
   * How long CancelTask gives a run of the task to end the task itself,
   * in ms: the run's signal aborts first, and the cancel answers as soon as
   * the run has ended (or the grace has passed) with the task as the agent
   * left it: canceled by the agent (its own status message reaches the
   * client), TaskNotCancelable when it finished otherwise, and canceled by
   * the service when it is still going. Default: the agent's own
   * `cancelGraceMs`, else 0 (the task is canceled at once, then the signal
   * aborts). A run in another live process of a cluster gets the grace too
   * when the coordinator can ask for it (`TaskCoordinator.requestAbort`,
   * as `@taskwire/postgres`'s does): the cancel then waits on the task's
   * commits for the grace and 2 s more, and cancels the task itself when
   * that process did not answer (gone, or of a release that ignores such
   * requests).
   */
  readonly cancelGraceMs?: number;
  /**
   * Opt-ins to what the next protocol version (A2A 1.1, not yet released)
   * is taking up. With `v1_1: true`, a first SendMessage (one that names no
   * task) sent with an `Idempotency-Key` is idempotent: the same key from
   * the same caller (tenant and principal) answers with the task the first
   * send made, on any process sharing the store, and never runs the agent a
   * second time; the same key with another message is refused with
   * `IdempotencyKeyReused`. A key lasts as long as the store keeps its task.
   * Default: off (the key is ignored, as in A2A 1.0).
   */
  readonly protocol?: ProtocolOptions;
}

/** See {@link TaskServiceOptions.protocol}. */
export interface ProtocolOptions {
  /**
   * Serves A2A 1.1 as the specification's dev-1.1 draft has it, to calls
   * that send `A2A-Version: 1.1` (others get VersionNotSupported without
   * it; 1.0 calls see no change either way): `generation` on every task
   * answered and on stream events (the task's committed event sequence: 1
   * at creation, one more per status or artifact change, the same on every
   * replica and after a restart); GetTask's `currentGeneration` (a long
   * poll: it answers once the generation is greater, at most
   * {@link maxLongPollMs} later); SendMessage's `ifGenerationMatch`
   * (TaskGenerationMismatch: -32010, ABORTED, HTTP 409). Also, on every
   * version, idempotent first sends (see {@link TaskServiceOptions.protocol}).
   * Default false.
   */
  readonly v1_1?: boolean;
  /** How long a GetTask with `currentGeneration` waits at most, in ms (default 30,000); the call's own deadline may end it sooner. */
  readonly maxLongPollMs?: number;
}

/** Every operation of the method table as a service method: unary ones resolve, stream ones open a stream. */
export type A2AHandlers = {
  [M in UnaryMethodName]: (params: ParsedParamsOf<M>, context: CallContext) => Promise<ResultOf<M>>;
} & {
  [M in StreamMethodName]: (params: ParsedParamsOf<M>, context: CallContext) => Promise<AsyncIterable<StreamEvent>>;
};

/**
 * Reads raw params as ProtoJSON (either field name, enums by number, `""`
 * as unset; see `readProtoJsonParams`) and validates them against the method
 * table; throws InvalidParams naming each bad field.
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParamsOf<M> {
  const result = METHODS[method].params.safeParse(readProtoJsonParams(method, params ?? {}));
  if (!result.success) throw invalidParams(result.error);
  return result.data as ParsedParamsOf<M>;
}
