/** Who is calling, as an authentication hook established it. `id` scopes tasks. */
export interface Principal {
  readonly id: string;
  readonly [claim: string]: unknown;
}

/**
 * What a transport knows about one call besides its params: the caller, the
 * tenant (from the path or the request), the protocol version, requested
 * extensions, and the call's own `signal`. Aborting `signal` (a dropped
 * connection) ends that call's stream; it never cancels the task.
 */
export interface CallContext {
  readonly principal?: Principal | undefined;
  readonly tenant?: string | undefined;
  readonly version?: string | undefined;
  readonly extensions?: readonly string[] | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * When true, a message naming an unknown taskId creates the task with that
   * id (v0.3 clients pick new task ids themselves) instead of TaskNotFound;
   * a task id owned by another caller is still TaskNotFound. Per call: the
   * v0.3 compatibility path sets it, v1.0 calls leave it unset.
   */
  readonly clientTaskIds?: boolean | undefined;
}

/**
 * The store owner key of a call: tenant and principal id. Tasks created by a
 * call are visible only to calls with the same key; anonymous calls without a
 * tenant share the key `''`.
 */
export function ownerOf(context: CallContext, tenant?: string): string {
  const t = tenant || context.tenant || '';
  const p = context.principal?.id ?? '';
  return t || p ? `${t}\u001f${p}` : '';
}
