import type { CallContext } from '@taskwire/core';

/**
 * The call context of a request served with v0.3 semantics (a v0.3 method
 * name, or no `A2A-Version` header). v0.3 clients pick the id of a new task
 * themselves (the Bindu frontend sends a fresh `taskId` plus
 * `referenceTaskIds` after a task completed), so a message naming an unknown
 * taskId creates the task with that id instead of failing with TaskNotFound.
 * A task id owned by another caller stays TaskNotFound; a terminal task
 * still refuses new messages (UnsupportedOperation). `version` is `0.3`
 * unless already set.
 */
export function v03CallContext<C extends CallContext>(ctx: C): C & { readonly clientTaskIds: true } {
  return { ...ctx, version: ctx.version ?? '0.3', clientTaskIds: true };
}
