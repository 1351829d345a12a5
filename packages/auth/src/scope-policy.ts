import type { Authorize, MethodName, Principal } from '@taskwire/core';
import { A2AError, permissionDenied } from '@taskwire/core';

/** Scope names of {@link DEFAULT_METHOD_SCOPES}. */
export const SCOPES = { read: 'tasks:read', write: 'tasks:write', push: 'tasks:push' } as const;

/**
 * The scopes each method needs by default: `tasks:read` to read tasks
 * (GetTask, ListTasks, SubscribeToTask), `tasks:write` to start, continue
 * or cancel them, `tasks:push` for the four push-config methods; the
 * extended card needs an authenticated caller and no scope (an anonymous
 * caller is refused even where the auth policy allows anonymous calls).
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
   * The skill the agent runs for a message that names none (no
   * `metadata.skillId`): such a message needs that skill's scopes from
   * `skills`. Without it the policy cannot tell where the agent routes the
   * message, so a message naming no skill needs the scopes of every skill
   * in `skills` (fail closed). Set it to the id of the card's first skill
   * if that is what your agent falls back to. A message naming a skill
   * that `skills` does not list needs its method's scopes only: an agent
   * must not route an unknown skill id to a skill that `skills` guards.
   */
  readonly defaultSkill?: string;
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
 * `skills`, every scope of that skill; for a message naming no skill, the
 * scopes of `defaultSkill`, or of every listed skill without one).
 * GetExtendedAgentCard needs an authenticated caller (the service
 * enforces that too). A caller without the scopes gets
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
    const skill = (method === 'SendMessage' || method === 'SendStreamingMessage') && options.skills ? skillNeeds(options.skills, skillOf(params), options.defaultSkill) : undefined;
    const needed = [...(methods[method] ?? []), ...(skill?.scopes ?? [])];
    if (needed.length === 0 && method !== 'GetExtendedAgentCard') return;
    const principal = context.principal;
    if (!principal) throw new A2AError('Unauthenticated', `${method} needs an authenticated caller; send credentials`);
    const granted = new Set(held(principal));
    const missing = needed.filter((scope) => !granted.has(scope));
    if (missing.length > 0) throw permissionDenied(missing, skill && skill.scopes.some((s) => missing.includes(s)) ? skill.what : method);
  };
}

/** The scopes a message needs for its skill, and how a refusal names it: the named skill, the default one, or every guarded skill. */
function skillNeeds(skills: Readonly<Record<string, readonly string[]>>, named: string | undefined, defaultSkill: string | undefined): { scopes: readonly string[]; what: string } {
  if (named !== undefined) return { scopes: skills[named] ?? [], what: `Skill ${named}` };
  if (defaultSkill !== undefined) return { scopes: skills[defaultSkill] ?? [], what: `Skill ${defaultSkill} (the default skill: the message names no metadata.skillId)` };
  return { scopes: [...new Set(Object.values(skills).flat())], what: 'A message that names no skill (metadata.skillId)' };
}
