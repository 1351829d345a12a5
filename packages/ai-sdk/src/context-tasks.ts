import type { AgentContext, Task, TaskStore } from '@taskwire/core';
import { ownerOf } from '@taskwire/core';

/**
 * An `earlierTasks` option for {@link a2aAgent} that carries a whole
 * conversation: the other tasks of the task's `contextId` in `store` that
 * the caller may see (the principal's; anonymous callers share theirs),
 * oldest first, at most `limit` (default 20, the most recent). For services
 * without tenants (the store key of a tenant's tasks includes it).
 */
export function contextTasks(store: Pick<TaskStore, 'list'>, limit = 20): (ctx: AgentContext) => Promise<readonly Task[]> {
  return async (ctx) => {
    const page = await store.list({ owner: ownerOf({ principal: ctx.principal }), contextId: ctx.task.contextId, pageSize: Math.min(100, limit + 1) });
    return page.tasks
      .filter((t) => t.id !== ctx.task.id)
      .slice(0, limit)
      .reverse();
  };
}
