import type { MethodName, ParamsOf, ResultOf, StreamMethodName, StreamResponse, TaskService, UnaryMethodName } from '@taskwire/core';
import { assertCredentialLive, assertNotExpired, METHOD_NAMES, METHODS } from '@taskwire/core';
import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from '@trpc/server';
import { initTRPC } from '@trpc/server';
import { splitTrace, startWsCall } from './call-telemetry.js';
import type { A2ARouterContext } from './context.js';
import type { A2AErrorShape } from './errors.js';
import { formatA2AError } from './errors.js';
import type { StreamInput } from './streams.js';
import { openStream } from './streams.js';
import { splitExtensions, type ExtensionsReply } from './call-extensions.js';
import { splitIdempotencyKey } from './call-idempotency.js';

/**
 * The read-only operations, served as tRPC queries: the unary ones that the
 * HTTP+JSON binding serves with GET (`Get*`, `List*`). Every other unary
 * operation is a mutation.
 */
export type ReadMethodName = Extract<UnaryMethodName, `Get${string}` | `List${string}`>;

/** True for a read-only operation (a unary one whose HTTP+JSON route is a GET). */
export function isReadMethod(method: MethodName): method is ReadMethodName {
  return METHODS[method].kind === 'unary' && METHODS[method].rest.verb === 'GET';
}

type Def<TInput, TOutput> = { input: TInput; output: TOutput; meta: object };

/** One event of a stream procedure as a tRPC client receives it: the event id (`<sequence>:<taskId>`) and the stream response. */
export interface TrackedStreamResponse {
  readonly id: string;
  readonly data: StreamResponse;
}

/**
 * One procedure per operation of core's method table, named by its v1.0
 * name: reads are queries, other unary operations mutations, and stream
 * operations subscriptions whose events are `tracked()` stream responses.
 */
export type A2AProcedures = {
  [M in UnaryMethodName]: M extends ReadMethodName
    ? TRPCQueryProcedure<Def<ParamsOf<M>, ResultOf<M>>>
    : TRPCMutationProcedure<Def<ParamsOf<M>, ResultOf<M>>>;
} & {
  [M in StreamMethodName]: TRPCSubscriptionProcedure<Def<StreamInput<M>, AsyncIterable<TrackedStreamResponse, void, unknown>>>;
};

/** The A2A router's type: give it to `createTRPCClient<A2ARouter>` for a fully typed client. */
export type A2ARouter = TRPCBuiltRouter<
  { ctx: A2ARouterContext; meta: object; errorShape: A2AErrorShape; transformer: false },
  A2AProcedures
>;

const t = initTRPC.context<A2ARouterContext>().create({ errorFormatter: formatA2AError, isDev: false });

/**
 * A call's input as sent: the procedures declare no input parser (the
 * service validates against the method table, with InvalidParams naming the
 * field), and read the raw input that tRPC hands every middleware and
 * resolver as `getRawInput`, so that no pass-through parser middleware runs
 * per call.
 */
function inputOf(opts: object): Promise<unknown> {
  return (opts as { getRawInput: () => Promise<unknown> }).getRawInput();
}

function unaryProcedure(service: TaskService, method: UnaryMethodName) {
  const resolve = async (opts: { ctx: A2ARouterContext }) => {
    assertNotExpired(opts.ctx.expiresAt);
    assertCredentialLive(opts.ctx.call.principal);
    const traced = splitTrace(await inputOf(opts));
    const keyed = splitIdempotencyKey(traced.params, opts.ctx.call);
    const { params, call: context, activation } = splitExtensions(keyed.params, keyed.call);
    const observed = startWsCall(service, method, params, traced.carrier, context);
    if (!observed && !activation) return service.unary(method, params, context);
    try {
      const result = await service.unary(method, params, context);
      observed?.ok(result);
      return activation ? ({ result, extensions: activation.seal() } satisfies ExtensionsReply<unknown>) : result;
    } catch (error) {
      observed?.fail(error);
      throw error;
    }
  };
  return isReadMethod(method) ? t.procedure.query(resolve) : t.procedure.mutation(resolve);
}

function streamProcedure<M extends StreamMethodName>(service: TaskService, method: M) {
  return t.procedure.subscription(async (opts) => {
    assertNotExpired(opts.ctx.expiresAt);
    assertCredentialLive(opts.ctx.call.principal);
    return openStream(service, method, (await inputOf(opts)) as StreamInput<M> | undefined, opts.ctx, opts.signal);
  });
}

/**
 * The A2A router of a {@link TaskService}, derived from core's method table
 * (no procedure is listed by hand). Every input goes to `service.unary` or
 * `service.stream` as sent, so validation, auth scoping and the protocol's
 * rules are the service's; every error reaches the client as a tRPC error
 * with the A2A error in `data.a2a` (see {@link A2AErrorShape}). Procedures
 * read the caller from the context ({@link A2ARouterContext}); the router
 * knows nothing of WebSocket, so any tRPC adapter that builds that context
 * can serve it.
 */
export function createA2ARouter(service: TaskService): A2ARouter {
  const procedures = Object.fromEntries(
    METHOD_NAMES.map((method) => [
      method,
      METHODS[method].kind === 'stream' ? streamProcedure(service, method as StreamMethodName) : unaryProcedure(service, method as UnaryMethodName),
    ]),
  );
  return t.router(procedures) as unknown as A2ARouter;
}
