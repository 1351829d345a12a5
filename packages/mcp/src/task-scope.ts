// Which MCP sessions may see which A2A tasks. The bridge reaches the agent
// with one set of credentials, so the agent sees every session as the same
// caller; the bridge itself keeps each task with the principal that started
// or first touched it, and refuses the others.

/** What one MCP session may do with A2A task and context ids. */
export interface TaskScope {
  /** True when the session's principal started or touched task `id` through this bridge. */
  mayUseTask(id: string): boolean;
  /** True when context `id` is this principal's or nobody's yet (a new context the client names). */
  mayUseContext(id: string): boolean;
  /** Records that this principal started or touched task `taskId` (in context `contextId`); the first principal keeps it. */
  claim(taskId: string, contextId?: string): void;
}

/**
 * The owners of the A2A tasks and contexts reached through one bridge,
 * shared by its sessions. A principal is a string the endpoint chooses: the
 * session id of an anonymous session (each session is on its own), or one
 * name for everyone who presented the bridge's token (they share tasks).
 * A task belongs to the first principal that started or touched it; a task
 * nobody claimed through this bridge is refused to every session (it may
 * be another session's from before, or another client's of the same agent).
 */
export class TaskOwners {
  private readonly tasks = new Map<string, string>();
  private readonly contexts = new Map<string, string>();

  /** The view of one principal. */
  scope(principal: string): TaskScope {
    return {
      mayUseTask: (id) => this.tasks.get(id) === principal,
      mayUseContext: (id) => (this.contexts.get(id) ?? principal) === principal,
      claim: (taskId, contextId) => {
        if (!this.tasks.has(taskId)) this.tasks.set(taskId, principal);
        if (contextId !== undefined && !this.contexts.has(contextId)) this.contexts.set(contextId, principal);
      },
    };
  }

  /** Forgets the tasks of `principal` (its last session ended): they are refused to everyone from then on, and so are its contexts. */
  release(principal: string): void {
    for (const [id, owner] of this.tasks) if (owner === principal) this.tasks.delete(id);
    for (const [id, owner] of this.contexts) if (owner === principal) this.contexts.set(id, '');
  }

  /** How many task ids are recorded (for tests and metrics). */
  get size(): number {
    return this.tasks.size;
  }
}

/** The sentence of a refused task or context id; it never says whose it is. */
export function notYours(kind: 'task' | 'context', id: string): string {
  return `This session cannot use ${kind} ${JSON.stringify(id)}: the bridge shares one set of agent credentials between its sessions, so a session may use only the tasks and contexts it started or touched itself.`;
}
