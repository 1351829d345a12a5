import type {
  AgentCard,
  AgentInterface,
  CallOptions,
  Logger,
  MethodSpec,
  ParamsOf,
  ResultOf,
  ServerVersion,
  StreamEvent,
  StreamMethodName,
  Task,
  Transport,
  UnaryMethodName,
} from '@taskwire/core';
import type { TelemetrySetting } from '@taskwire/core';
import { METHOD_NAMES, METHODS, resolveTelemetry } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffOptions, DEFAULT_POLL_BACKOFF } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { systemClock } from './clock.js';
import type { ConversationState } from './conversation.js';
import { Conversation } from './conversation.js';
import type { Interceptor } from './interceptors.js';
import { withInterceptors } from './interceptors.js';
import { pollingStream } from './polling-stream.js';
import type { ResumeOptions } from './resumable-stream.js';
import { resumableStream } from './resumable-stream.js';
import type { RetryOptions } from './retry.js';
import { withRetry } from './retry.js';
import { abortable, callSignal } from './signals.js';
import { askExtensions, extensionsOf, markedEvents } from './activated-extensions.js';
import { keyedSend } from './idempotency-keys.js';
import { rpcSystemOf, withTelemetry } from './telemetry.js';
import type { WaitOptions } from './wait-for-task.js';
import { waitForTask } from './wait-for-task.js';

/** How an {@link A2AClient} behaves. Every field is optional. */
export interface ClientOptions {
  /** The agent's card: its `capabilities.streaming` decides between streams and polling. */
  readonly card?: AgentCard | undefined;
  /** Sent as `tenant` in every request that does not set one (the selected interface's tenant). */
  readonly tenant?: string | undefined;
  /** The protocol version the transport speaks (informational; set by `createClient`). */
  readonly version?: ServerVersion | undefined;
  /** The card interface the transport talks to (informational; set by `createClient`). */
  readonly interface?: AgentInterface | undefined;
  /**
   * A2A extension URIs every call asks for (sent as `A2A-Extensions`); a
   * call's own `extensions` are added to them. What the agent activated is
   * on every answer: see {@link activatedExtensions}.
   */
  readonly extensions?: readonly string[];
  /**
   * Gives every first send (a SendMessage or SendStreamingMessage whose
   * message names no task) an `Idempotency-Key` of its own, reused on its
   * retries: a server that honours keys (Taskwire's `protocol.v1_1`)
   * answers a retry with the task the first attempt made and runs nothing
   * twice, so a keyed SendMessage is retried on transient errors as reads
   * are. A call's own `idempotencyKey` wins. Default false.
   */
  readonly idempotentSends?: boolean;
  /** Hooks around every call (headers, logging, timing), in order. */
  readonly interceptors?: readonly Interceptor[];
  /** Retrying of idempotent calls on transient errors; `false` turns it off. */
  readonly retry?: RetryOptions | false;
  /** Resumption of dropped streams; `false` turns it off. */
  readonly resume?: ResumeOptions | false;
  /** Default timeout of every unary call, in ms (streams only time out when a call asks). */
  readonly timeoutMs?: number;
  /** Default backoff of `waitForTask` and of polling streams. */
  readonly poll?: Partial<BackoffOptions>;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger?: Logger;
  /**
   * OpenTelemetry: a CLIENT span (`invoke_agent <agent>` for sends, polls,
   * streams and cancels) and `rpc.client.duration` per call, with the trace
   * context sent along (`traceparent`). Default: the SDK the process
   * registered through `@opentelemetry/api` (nothing when none is); `false`
   * for none.
   */
  readonly telemetry?: TelemetrySetting;
}

/** Per-call options of an {@link A2AClient}: the transport's, and extensions to ask for besides the client's. */
export interface ClientCallOptions extends CallOptions {
  /** A2A extension URIs this call asks for, besides the client's `extensions`. */
  readonly extensions?: readonly string[];
  /**
   * The `Idempotency-Key` of this send (SendMessage, SendStreamingMessage;
   * ignored by other calls): reuse it when you send the same message again
   * yourself. See {@link ClientOptions.idempotentSends}.
   */
  readonly idempotencyKey?: string;
}

/** Per-stream options: the call options, and whether a dropped stream is resumed (default: the client's setting). */
export interface StreamOptions extends ClientCallOptions {
  readonly resume?: boolean;
}

/** `{}`-able params may be left out. */
type ParamsArg<M extends UnaryMethodName | StreamMethodName> = {} extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

/**
 * One method per operation of core's method table, named in lowerCamelCase
 * (`sendMessage`, `getTask`, `sendStreamingMessage`, `subscribeToTask`, ...):
 * unary operations resolve with their result, stream operations return an
 * async iterable of events. Derived from `METHODS`, so it never drifts.
 */
export type ClientMethods = {
  [M in UnaryMethodName as Uncapitalize<M>]: (...args: [...ParamsArg<M>, options?: ClientCallOptions]) => Promise<ResultOf<M>>;
} & {
  [M in StreamMethodName as Uncapitalize<M>]: (...args: [...ParamsArg<M>, options?: StreamOptions]) => AsyncIterable<StreamEvent>;
};

/**
 * An A2A client over any {@link Transport}. It adds, around the transport:
 * the interface's `tenant` on every request, interceptors, retries of
 * transient failures on idempotent calls, per-call `signal` and timeout,
 * resumption of dropped streams, polling when the agent does not stream,
 * `waitForTask`, and conversations that pick task ids by themselves.
 *
 * Every operation is a method (see {@link ClientMethods}); `unary` and
 * `stream` call one by name.
 */
export class A2AClient {
  /** The transport with interceptors, retries and telemetry applied (what every call goes through). */
  readonly transport: Transport;
  readonly card: AgentCard | undefined;
  readonly tenant: string | undefined;
  readonly version: ServerVersion;
  /** The card interface selected by `createClient`, if it made this client. */
  readonly interface: AgentInterface | undefined;
  private readonly clock: Clock;
  private readonly random: Random;

  constructor(
    transport: Transport,
    readonly options: ClientOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.card = options.card;
    this.tenant = options.tenant;
    this.version = options.version ?? '1.0';
    this.interface = options.interface;
    const intercepted = withInterceptors(transport, options.interceptors ?? [], this.clock);
    const retried =
      options.retry === false
        ? intercepted
        : withRetry(intercepted, { clock: this.clock, random: this.random, logger: options.logger, ...options.retry });
    const target = { agentName: this.card?.name, serverAddress: this.interface?.url, system: rpcSystemOf(this.interface?.protocolBinding) };
    this.transport = withTelemetry(retried, resolveTelemetry(options.telemetry), target);
  }

  /** True unless the card says the agent does not stream (then streams are polled). */
  get streams(): boolean {
    return this.card === undefined || this.card.capabilities.streaming === true;
  }

  /** Calls a unary operation by name. Aborting `signal` or passing `timeoutMs` rejects with the signal's reason. */
  unary<M extends UnaryMethodName>(method: M, params?: ParamsOf<M>, options?: ClientCallOptions): Promise<ResultOf<M>> {
    const signal = callSignal(options?.signal, options?.timeoutMs ?? this.options.timeoutMs);
    let base: CallOptions = { headers: options?.headers, signal, onExtensions: options?.onExtensions };
    if (method === 'SendMessage') base = keyedSend(base, params, options?.idempotencyKey, this.options.idempotentSends === true);
    const asked = askExtensions(base, extensionsOf(this.options.extensions, options?.extensions));
    const call = this.transport.unary(method, this.withTenant(params) as ParamsOf<M>, asked.call);
    return abortable(call, signal).then(asked.mark);
  }

  /**
   * Opens a stream operation by name. Dropped streams are resumed from the
   * last event (unless `resume: false`); against an agent whose card says it
   * does not stream, the task is polled and yielded as snapshots.
   */
  stream<M extends StreamMethodName>(method: M, params?: ParamsOf<M>, options?: StreamOptions): AsyncIterable<StreamEvent> {
    const full = this.withTenant(params) as ParamsOf<M>;
    let base: CallOptions = { headers: options?.headers, signal: callSignal(options?.signal, options?.timeoutMs), onExtensions: options?.onExtensions };
    if (method === 'SendStreamingMessage') base = keyedSend(base, params, options?.idempotencyKey, this.options.idempotentSends === true);
    const asked = askExtensions(base, extensionsOf(this.options.extensions, options?.extensions));
    const events = this.openStream(method, full, asked.call, options?.resume);
    return asked.call === base ? events : markedEvents(events, asked.mark);
  }

  private openStream<M extends StreamMethodName>(method: M, full: ParamsOf<M>, call: CallOptions, resumeCall: boolean | undefined): AsyncIterable<StreamEvent> {
    if (!this.streams) return pollingStream(this.transport, method, full, call, this.pollOptions(call.signal));
    const resume = this.options.resume;
    if (resumeCall === false || (resume === false && resumeCall !== true)) return this.transport.stream(method, full, call);
    return resumableStream(this.transport, method, full, {
      clock: this.clock,
      random: this.random,
      logger: this.options.logger,
      ...(resume || {}),
      ...call,
    });
  }

  /**
   * Waits until the task is settled (or meets `until`); see
   * {@link waitForTask}. When the card says the agent streams, it follows
   * the task with SubscribeToTask (resuming dropped streams, polling only
   * when that fails); otherwise it polls GetTask with exponential backoff
   * and full jitter.
   */
  waitForTask(id: string, options: WaitOptions = {}): Promise<Task> {
    const resume = this.options.resume;
    return waitForTask(this.transport, id, {
      tenant: this.tenant,
      clock: this.clock,
      random: this.random,
      logger: this.options.logger,
      stream: this.card?.capabilities.streaming === true,
      resume: resume === false ? { attempts: 0 } : resume,
      ...options,
      backoff: { ...this.options.poll, ...options.backoff },
    });
  }

  /** Starts a conversation (or restores one from `state`): it picks task ids and references by itself. */
  conversation(state?: ConversationState): Conversation {
    return new Conversation(this, state);
  }

  /** Releases the transport's connections. */
  async close(): Promise<void> {
    await this.transport.close?.();
  }

  private pollOptions(signal: AbortSignal | undefined) {
    const backoff = backoffOptions(this.options.poll, DEFAULT_POLL_BACKOFF);
    return { backoff, clock: this.clock, random: this.random, signal, logger: this.options.logger };
  }

  private withTenant(params: unknown): object {
    const given = (params ?? {}) as { tenant?: string };
    return this.tenant !== undefined && given.tenant === undefined ? { ...given, tenant: this.tenant } : given;
  }
}

/** The operation methods of {@link A2AClient}: one per entry of the method table, defined below. */
export interface A2AClient extends ClientMethods {}

for (const name of METHOD_NAMES) {
  const key = name.charAt(0).toLowerCase() + name.slice(1);
  const kind = (METHODS[name] as MethodSpec).kind;
  Object.defineProperty(A2AClient.prototype, key, {
    configurable: true,
    writable: true,
    value(this: A2AClient, params?: unknown, options?: CallOptions) {
      return kind === 'unary'
        ? this.unary(name as UnaryMethodName, params as never, options)
        : this.stream(name as StreamMethodName, params as never, options);
    },
  });
}
