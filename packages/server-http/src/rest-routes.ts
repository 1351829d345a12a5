import type { MethodName } from '@taskwire/core';
import { A2AError, METHOD_NAMES, METHODS } from '@taskwire/core';

/** One segment of a route template: a literal, or a path parameter with an optional `:verb` suffix. */
type Segment = { readonly literal: string } | { readonly param: string; readonly suffix: string };

/** A route of the HTTP+JSON binding, compiled from the method table. */
interface Route {
  readonly method: MethodName;
  readonly verbs: readonly string[];
  readonly segments: readonly Segment[];
}

/** A request path resolved to an operation. */
export interface RouteMatch {
  readonly method: MethodName;
  /** Decoded path parameters (`id`, `taskId`). */
  readonly pathParams: Record<string, string>;
  /** The decoded `/{tenant}` prefix, if the path had one. */
  readonly tenant: string | undefined;
}

/** Why a path did not resolve: nothing lives there (404), or not with this verb (405, with the verbs that work). */
export type RouteMiss = { readonly allowed: readonly string[] };

/** Verbs a route accepts besides the table's: the spec's method table lists `POST /tasks/{id}:subscribe`, the proto `GET`. */
const EXTRA_VERBS: Partial<Record<MethodName, readonly string[]>> = { SubscribeToTask: ['POST'] };

function compile(template: string): Segment[] {
  return template
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      const match = /^\{(\w+)\}(.*)$/.exec(s);
      return match ? { param: match[1]!, suffix: match[2]! } : { literal: s };
    });
}

/** Every route, derived from `METHODS[m].rest` (the method table is the one source of paths). */
const ROUTES: readonly Route[] = METHOD_NAMES.map((method) => {
  const rest = METHODS[method].rest;
  return { method, verbs: [rest.verb, ...(EXTRA_VERBS[method] ?? [])], segments: compile(rest.path) };
});

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new A2AError('InvalidParams', `The path segment "${raw}" is not valid percent-encoding`);
  }
}

/**
 * Matches raw path segments against a route. A parameter matches one
 * non-empty segment; a raw `:` separates a custom verb (`{id}:cancel`), so a
 * parameter without a suffix never swallows one (ids containing `:` arrive
 * percent-encoded).
 */
function matchRoute(route: Route, raw: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== raw.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < raw.length; i++) {
    const segment = route.segments[i]!;
    const value = raw[i]!;
    if ('literal' in segment) {
      if (segment.literal !== value) return undefined;
      continue;
    }
    if (!value.endsWith(segment.suffix)) return undefined;
    const body = value.slice(0, value.length - segment.suffix.length);
    if (body === '' || body.includes(':')) return undefined;
    params[segment.param] = body;
  }
  for (const key of Object.keys(params)) params[key] = decode(params[key]!);
  return params;
}

/**
 * Resolves `verb` and a path below the binding's base path to an operation.
 * The plain paths are tried first, then the same paths under a `/{tenant}`
 * prefix. Resolves the match, or a miss listing the verbs the path allows.
 */
export function resolveRoute(verb: string, subPath: string): RouteMatch | RouteMiss {
  const raw = subPath.split('/').filter((s) => s !== '');
  const allowed = new Set<string>();
  const attempts: [readonly string[], string | undefined][] = [[raw, undefined]];
  if (raw.length > 1) attempts.push([raw.slice(1), raw[0]]);
  for (const [segments, tenant] of attempts) {
    for (const route of ROUTES) {
      const params = matchRoute(route, segments);
      if (!params) continue;
      if (route.verbs.includes(verb)) return { method: route.method, pathParams: params, tenant: tenant === undefined ? undefined : decode(tenant) };
      for (const v of route.verbs) allowed.add(v);
    }
  }
  return { allowed: [...allowed] };
}
