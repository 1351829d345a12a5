import type { TaskService } from '@taskwire/core';
import { probeStore } from '@taskwire/core';
import type { HttpReply, HttpRequest } from './http-types.js';
import { emptyReply, jsonReply, JSON_TYPE } from './replies.js';

/**
 * Health checks for orchestrators (Kubernetes probes, load balancers):
 * liveness at {@link livePath} answers 200 while the process serves
 * requests; readiness at {@link readyPath} answers 200 only while the task
 * store answers (`TaskStore.ping`, else a read), the server is not closing
 * (draining), and your own {@link ready} check passes; 503 with the reason
 * otherwise. Both answer GET and HEAD, without auth, off the A2A paths.
 */
export interface HealthOptions {
  /** Liveness path (default `/healthz`); `false` leaves it out. */
  readonly livePath?: string | false;
  /** Readiness path (default `/readyz`); `false` leaves it out. */
  readonly readyPath?: string | false;
  /** A readiness check of your own: `true` when ready, else the reason it is not. */
  readonly ready?: () => true | string | Promise<true | string>;
  /** How long the store may take to answer the readiness probe (default 2000 ms). */
  readonly storeTimeoutMs?: number;
}

/** Default paths of the health checks. */
export const HEALTH_DEFAULTS = { livePath: '/healthz', readyPath: '/readyz', storeTimeoutMs: 2000 } as const;

const NO_STORE = { 'cache-control': 'no-store' };

/** The A2A paths of a handler: those it answers exactly (JSON-RPC, the card) and the base of the HTTP+JSON binding. */
export interface A2APaths {
  readonly exact: readonly (string | undefined)[];
  readonly base: string | undefined;
}

function healthPath(value: string | false | undefined, fallback: string, a2a: A2APaths): string | undefined {
  if (value === false) return undefined;
  const path = (value ?? fallback).replace(/\/+$/, '');
  if (!path.startsWith('/')) throw new TypeError(`Health check paths must start with "/" (got "${value}")`);
  const clash = a2a.exact.find((p) => p === path) ?? (a2a.base !== undefined && (path === a2a.base || path.startsWith(`${a2a.base}/`)) ? a2a.base : undefined);
  if (clash !== undefined) throw new TypeError(`The health check path ${path} is an A2A path (${clash || '/'}); choose another`);
  return path;
}

/** The liveness and readiness endpoints of one handler. */
export class HealthEndpoint {
  private readonly live: string | undefined;
  private readonly readiness: string | undefined;

  /** `a2aPaths`: the handler's A2A paths, which the health paths must stay out of (a TypeError otherwise). */
  constructor(
    private readonly options: HealthOptions,
    private readonly service: TaskService,
    a2aPaths: A2APaths,
  ) {
    this.live = healthPath(options.livePath, HEALTH_DEFAULTS.livePath, a2aPaths);
    this.readiness = healthPath(options.readyPath, HEALTH_DEFAULTS.readyPath, a2aPaths);
  }

  /** True for a path this endpoint answers. */
  matches(path: string): boolean {
    return path === this.live || path === this.readiness;
  }

  /** Answers a health check; `closing` is true once the server is draining. */
  async handle(request: HttpRequest, closing: boolean): Promise<HttpReply> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return emptyReply(405, { allow: 'GET, HEAD' });
    if (request.path === this.live) return jsonReply(200, { status: 'ok' }, JSON_TYPE, NO_STORE);
    const reason = await this.notReady(closing);
    return reason === undefined
      ? jsonReply(200, { status: 'ready' }, JSON_TYPE, NO_STORE)
      : jsonReply(503, { status: 'unavailable', reason }, JSON_TYPE, NO_STORE);
  }

  private async notReady(closing: boolean): Promise<string | undefined> {
    if (closing) return 'the server is shutting down';
    const probe = await probeStore(this.service.engine.store, this.options.storeTimeoutMs ?? HEALTH_DEFAULTS.storeTimeoutMs);
    if (!probe.ok) return probe.reason;
    if (!this.options.ready) return undefined;
    try {
      const own = await this.options.ready();
      return own === true ? undefined : own;
    } catch (error) {
      return `the readiness check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
