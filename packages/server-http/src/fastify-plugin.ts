import type { IncomingMessage, ServerResponse } from 'node:http';
import type { A2AHandler } from './handler.js';

/** The little of a Fastify request the plugin reads. */
interface FastifyRequestLike {
  readonly raw: IncomingMessage;
}

/** The little of a Fastify reply the plugin uses. */
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  hijack(): unknown;
  callNotFound(): unknown;
}

/** The little of a Fastify instance the plugin uses (Fastify 4 and 5; nothing of Fastify is imported). */
export interface FastifyInstanceLike {
  /** The prefix the plugin was registered with (`''` at the root). */
  readonly prefix: string;
  route(options: {
    method: string[];
    url: string;
    onRequest: (request: FastifyRequestLike, reply: FastifyReplyLike, done: () => void) => void;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => unknown;
  }): unknown;
  addHook(name: 'preClose', hook: (done: () => void) => void): unknown;
}

/** A Fastify plugin function, for `app.register(plugin, { prefix })`. */
export type A2AFastifyPlugin = (instance: FastifyInstanceLike, options: unknown, done: (error?: Error) => void) => void;

const METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];

/**
 * A Fastify plugin serving `handler`'s A2A paths below the prefix it is
 * registered with: `app.register(a2aFastify(a2a), { prefix: '/agent' })`
 * answers JSON-RPC at `/agent/a2a/jsonrpc`, HTTP+JSON below
 * `/agent/a2a/rest` and the card at `/agent/.well-known/agent-card.json`
 * (the handler's paths, below the prefix). Its routes take each A2A request
 * over in their `onRequest` hook, before Fastify parses a body, so the
 * app's own content-type parsers, its routes and its hooks registered
 * elsewhere are left as they are (the app's root `onRequest` hooks run
 * first: an auth hook there guards A2A too). A path below the prefix that
 * is not an A2A path gets Fastify's 404. Closing the app ends open streams.
 * For clients that read the card at the site's root, add the root card
 * route on the app: `app.get('/.well-known/agent-card.json', (request,
 * reply) => (reply.hijack(), a2a.node(request.raw, reply.raw)))`; give the
 * handler a `publicUrl` with the prefix so the card's interfaces point there.
 */
export function a2aFastify(handler: A2AHandler): A2AFastifyPlugin {
  return (instance, _options, done) => {
    const prefix = instance.prefix;
    const onRequest = (request: FastifyRequestLike, reply: FastifyReplyLike, next: () => void): void => {
      const url = request.raw.url ?? '/';
      const inner = url.startsWith(prefix) ? url.slice(prefix.length) || '/' : url;
      if (!handler.matches(inner)) return next();
      reply.hijack();
      // The handler's paths are relative to the prefix, as under Express's app.use(prefix, ...).
      request.raw.url = inner;
      handler.node(request.raw, reply.raw);
    };
    const handle = (_request: FastifyRequestLike, reply: FastifyReplyLike) => reply.callNotFound();
    instance.route({ method: METHODS, url: '/*', onRequest, handler: handle });
    instance.addHook('preClose', (closed) => {
      handler.close();
      closed();
    });
    done();
  };
}
