import type { Authorize, MethodName, Principal } from '@taskwire/core';
import { A2AError, permissionDenied } from '@taskwire/core';

/** Scope names of {@link DEFAULT_METHOD_SCOPES}. */
export const SCOPES = { read: 'tasks:read', write: 'tasks:write', push: 'tasks:push' } as const;

/**
 * The scopes each method needs by default: `tasks:read` to read tasks
 * (GetTask, ListTasks, SubscribeToTask), `tasks:write` to start, continue
 * or cancel them, `tasks:push` for the four push-config methods; the
 * extended card needs an authenticated caller and no scope.
 */
export const DEFAULT_METHOD_SCOPES: Readonly<Record<MethodName, readonly string[]>> = {
  SendMessage: [SCOPES.write],
  SendStreamingMessage: [SCOPES.write],
  CancelTask: [SCOPES.write],
  GetTask: [SCOPES.read],
  ListTasks: [SCOPES.read],
  SubscribeToTask: [SCOPES.read],
  CreateTaskPushNotificationConfig: [SCOPES.push],
  GetTaskPushNotificationConfig: [SCOPES.push],
  ListTaskPushNotificationConfigs: [SCOPES.push],
  DeleteTaskPushNotificationConfig: [SCOPES.push],
  GetExtendedAgentCard: [],
};

/** Options of {@link scopePolicy}. */
export interface ScopePolicyOptions {
  /** Scopes per method, over {@link DEFAULT_METHOD_SCOPES} (`[]`: any authenticated caller). */
  readonly methods?: Partial<Record<MethodName, readonly string[]>>;
  /** Scopes a message routed to a skill needs, by skill id, on top of its method's. */
  readonly skills?: Readonly<Record<string, readonly string[]>>;
  /**
   * The skill a SendMessage / SendStreamingMessage asks for; default the
   * message's `metadata.skillId` when it is a string (see {@link skillIdOf}).
   */
  readonly skillOf?: (params: unknown) => string | undefined;
  /** The scopes a principal holds; default its `scopes` array (what `jwtAuth` and `mtlsAuth` set). */
  readonly scopesOf?: (principal: Principal) => readonly string[];
}

/** The `metadata.skillId` of a send's message, if it is a string. */
export function skillIdOf(params: unknown): string | undefined {
  const message = (params as { message?: { metadata?: Record<string, unknown> } } | undefined)?.message;
  const skill = message?.metadata?.['skillId'];
  return typeof skill === 'string' ? skill : undefined;
}

const principalScopes = (principal: Principal): readonly string[] => {
  const scopes = principal['scopes'];
  return Array.isArray(scopes) ? (scopes as string[]) : [];
};

/**
 * Authorization by scopes: a call runs only when the caller holds every
 * scope its method needs (and, for a message to a skill listed in
 * `skills`, every scope of that skill). A caller without the scopes gets
 * `PermissionDenied` (HTTP 403 with an RFC 6750 `insufficient_scope`
 * challenge naming them, gRPC PERMISSION_DENIED, JSON-RPC -32031); an
 * anonymous caller of a method that needs scopes gets `Unauthenticated`.
 * Pass the result as `authorize` to the `TaskService`.
 */
export function scopePolicy(options: ScopePolicyOptions = {}): Authorize {
  const methods = { ...DEFAULT_METHOD_SCOPES, ...options.methods };
  const skillOf = options.skillOf ?? skillIdOf;
  const held = options.scopesOf ?? principalScopes;
  return ({ method, params, context }) => {
    const skill = (method === 'SendMessage' || method === 'SendStreamingMessage') && options.skills ? skillOf(params) : undefined;
    const skillScopes = skill !== undefined ? (options.skills?.[skill] ?? []) : [];
    const needed = [...(methods[method] ?? []), ...skillScopes];
    if (needed.length === 0) return;
    const principal = context.principal;
    if (!principal) throw new A2AError('Unauthenticated', `${method} needs an authenticated caller; send credentials`);
    const granted = new Set(held(principal));
    const missing = needed.filter((scope) => !granted.has(scope));
    if (missing.length > 0) throw permissionDenied(missing, skill !== undefined && skillScopes.some((s) => missing.includes(s)) ? `Skill ${skill}` : method);
  };
}
