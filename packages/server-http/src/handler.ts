import { CorsPolicy } from './cors.js';
import { Dispatcher } from './dispatch.js';
import type { FetchHandler } from './fetch-host.js';
import { fetchHandler } from './fetch-host.js';
import { HealthEndpoint } from './health.js';
import type { CoreHandle, HttpReply, HttpRequest } from './http-types.js';
import { pathOf } from './http-types.js';
import { JsonRpcEndpoint } from './json-rpc.js';
import type { NodeHandler } from './node-host.js';
import { nodeHandler } from './node-host.js';
import type { A2AHttpOptions } from './options.js';
import { resolveOptions } from './options.js';
import { PublicCard } from './public-card.js';
import { RestEndpoint } from './rest.js';
import { withV03Discovery } from './v03-card.js';

/**
 * One A2A HTTP endpoint set (JSON-RPC, HTTP+JSON, the agent card) with three
 * ways to host it. All three share one transport-neutral core, so they
 * behave the same.
 */
export interface A2AHandler {
  /**
   * The transport-neutral core: answers a request to an A2A path, or
   * resolves `undefined` for any other path.
   */
  readonly handle: CoreHandle;
  /** For `http.createServer(handler.node)`, Express `app.use(handler.node)`, or a Fastify `onRequest` hook: `reply.hijack()` + `handler.node(request.raw, reply.raw)` (see {@link matches}). */
  readonly node: NodeHandler;
  /**
   * Whether a request URL (a path, with or without its query) is one of the
   * A2A paths this handler answers. For hosts that must decide before
   * handing a request over, e.g. a Fastify `onRequest` hook that hijacks
   * only A2A requests and leaves the rest to Fastify's routes.
   */
  matches(url: string): boolean;
  /** For Workers, Bun, Deno: `export default { fetch: handler.fetch }`. Non-A2A paths get a 404. */
  readonly fetch: FetchHandler;
  /**
   * Prepares for shutdown: ends every open stream (tasks keep running;
   * clients can resume with `Last-Event-ID`) and answers later node requests
   * with `Connection: close`.
   */
  close(): void;
  /** How many SSE streams are open right now. */
  readonly openStreams: number;
}

const under = (path: string, base: string) => path.startsWith(base) && (path.length === base.length || path[base.length] === '/');
const at = (path: string, target: string) => path === target || path === `${target}/`;

/**
 * Builds the A2A HTTP handler of a service: JSON-RPC 2.0 at `jsonRpcPath`,
 * the HTTP+JSON binding below `restPath`, the public agent card at
 * `cardPath` (when there is a card: a v1.0 AgentCard, built for
 * `publicUrl` or a trusted proxy's report when it is a function, with the
 * v0.3 discovery fields added when `v03Discovery` is on), and CORS on all of
 * them when `cors` is set.
 * Request handling is protocol-free: it decodes the wire, calls
 * `service.unary` / `service.stream`, and encodes results and A2A errors
 * back.
 */
export function createA2AHandler(options: A2AHttpOptions): A2AHandler {
  const resolved = resolveOptions(options);
  const dispatcher = new Dispatcher(resolved);
  const jsonRpc = resolved.jsonRpcPath !== undefined ? new JsonRpcEndpoint(resolved, dispatcher) : undefined;
  const rest = resolved.restPath !== undefined ? new RestEndpoint(resolved, dispatcher) : undefined;
  const card =
    resolved.cardPath !== undefined && resolved.card
      ? new PublicCard(resolved.card, {
          publicUrl: resolved.publicUrl,
          trustProxy: resolved.trustProxy,
          finish: (built) => (resolved.v03Discovery ? withV03Discovery(built, resolved.jsonRpcPath) : built),
          caching: { maxAgeSeconds: resolved.cardMaxAgeSeconds, lastModified: resolved.cardLastModified },
        })
      : undefined;
  const cors = options.cors && new CorsPolicy(options.cors);
  const a2aPaths = { exact: [resolved.cardPath, resolved.jsonRpcPath], base: resolved.restPath };
  const health = options.health ? new HealthEndpoint(options.health === true ? {} : options.health, resolved.service, a2aPaths) : undefined;

  // Which endpoint answers a path; `handle` and `matches` share it.
  const route = (path: string) => {
    if (health?.matches(path)) return 'health';
    if (card && at(path, resolved.cardPath!)) return 'card';
    if (jsonRpc && at(path, resolved.jsonRpcPath!)) return 'jsonRpc';
    if (rest && under(path, resolved.restPath!)) return 'rest';
    return undefined;
  };
  const answer = (target: 'card' | 'jsonRpc' | 'rest', request: HttpRequest): HttpReply | Promise<HttpReply> => {
    switch (target) {
      case 'card':
        return card!.handle(request);
      case 'jsonRpc':
        return jsonRpc!.handle(request);
      case 'rest':
        return rest!.handle(request, request.path.slice(resolved.restPath!.length));
    }
  };
  const handle = async (request: HttpRequest) => {
    const target = route(request.path);
    if (target === undefined) return undefined;
    if (target === 'health') return health!.handle(request, state.closing);
    if (!cors) return answer(target, request);
    return cors.isPreflight(request) ? cors.preflight(request) : cors.apply(request, await answer(target, request));
  };

  const state = { closing: false };
  return {
    handle,
    node: nodeHandler(handle, resolved.maxBodyBytes, resolved.logger, state),
    matches: (url) => route(pathOf(url)) !== undefined,
    fetch: fetchHandler(handle, resolved.maxBodyBytes, resolved.logger),
    close: () => {
      state.closing = true;
      dispatcher.closeStreams();
    },
    get openStreams() {
      return dispatcher.openStreams;
    },
  };
}
