// The MCP task store of a bridge: MCP tasks (2025-11-25) in memory, each
// bound to the run that follows its A2A task, so that tasks/cancel stops it.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTaskStore, isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallToolResult, Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';

/** What the store knows of an MCP task besides the SDK's record: never a credential, only ids and the run's abort. */
interface Binding {
  /** A plain (not task-augmented) `tools/call`: the store serves it internally and never lists it. */
  readonly plain: boolean;
  /** Aborted when the client cancels the MCP task (the run then cancels its A2A task). */
  readonly abort: AbortController;
  /** The A2A task this MCP task follows, once the agent has named it. */
  a2aTaskId?: string;
  /** The result of a plain call, or of a task that ended `cancelled` (the SDK's store keeps results of completed and failed ones only). */
  result?: CallToolResult;
  /** A plain call's task record (kept here, not in the SDK's store, so that it goes once read). */
  task?: Task;
}

/**
 * A `TaskStore` (the SDK's experimental tasks API) for the bridge. MCP task
 * ids are the SDK's random ids; each maps to the A2A task id it follows
 * (see {@link BridgeTaskStore.a2aTaskOf}). Cancelling an MCP task
 * (`tasks/cancel`) aborts its run, which cancels the A2A task. A plain
 * `tools/call` of a task-capable tool also passes through here (the SDK
 * routes it so); it is kept out of `tasks/list` and forgotten once its
 * result is read. Tasks live in memory for their `ttl` (default: one hour,
 * at most one day): the SDK's record and the bridge's binding both go then.
 */
export class BridgeTaskStore implements TaskStore {
  private readonly inner = new InMemoryTaskStore();
  private readonly bindings = new Map<string, Binding>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  /**
   * @param defaultTtlMs how long a task is kept when its creator asked for no `ttl` (default one hour).
   * @param maxTtlMs the longest `ttl` a client may ask for (default one day); longer ones are cut to it.
   */
  constructor(
    private readonly defaultTtlMs = 3_600_000,
    private readonly maxTtlMs = 86_400_000,
  ) {}

  /** How many MCP tasks (with their bindings) the store holds. */
  get size(): number {
    return this.bindings.size;
  }

  /**
   * Forgets task `taskId` once its lifetime is over: a plain call's record
   * after `ms` (it is normally read and dropped at once), a task's binding
   * once the SDK's store has dropped its record (`ttl` after it ended).
   */
  private expire(taskId: string, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(taskId);
      const binding = this.bindings.get(taskId);
      if (!binding) return;
      if (binding.plain) return void this.bindings.delete(taskId);
      void this.inner.getTask(taskId).then(
        (task) => (task === null ? void this.bindings.delete(taskId) : this.expire(taskId, ms)),
        () => void this.bindings.delete(taskId),
      );
    }, ms);
    timer.unref?.();
    this.timers.set(taskId, timer);
  }

  /** Creates the MCP task of a `tools/call`; task-augmented or not is read from the request. */
  async createTask(params: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    const abort = new AbortController();
    if ((request.params as { task?: unknown } | undefined)?.task === undefined) {
      const now = new Date().toISOString();
      const task: Task = { taskId: globalThis.crypto.randomUUID(), status: 'working', ttl: null, createdAt: now, lastUpdatedAt: now };
      this.bindings.set(task.taskId, { plain: true, abort, task });
      this.expire(task.taskId, this.defaultTtlMs);
      return { ...task };
    }
    const ttl = Math.min(params.ttl ?? this.defaultTtlMs, this.maxTtlMs);
    const task = await this.inner.createTask({ ...params, ttl }, requestId, request, sessionId);
    this.bindings.set(task.taskId, { plain: false, abort });
    this.expire(task.taskId, ttl);
    return task;
  }

  /** The MCP task, or null when it is unknown (or another session's). */
  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const plain = this.bindings.get(taskId)?.task;
    return plain ? { ...plain } : this.inner.getTask(taskId, sessionId);
  }

  /** Stores the result of a task that ended `completed` or `failed`. */
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    return this.inner.storeTaskResult(taskId, status, result, sessionId);
  }

  /** The stored result; a plain call's record is forgotten once read. */
  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const binding = this.bindings.get(taskId);
    const result = binding?.result ?? (await this.inner.getTaskResult(taskId, sessionId));
    if (binding?.plain) {
      this.bindings.delete(taskId);
      clearTimeout(this.timers.get(taskId));
      this.timers.delete(taskId);
    }
    return result;
  }

  /** Updates the status; `cancelled` (from `tasks/cancel` or the agent) aborts the task's run. */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await this.inner.updateTaskStatus(taskId, status, statusMessage, sessionId);
    const binding = this.bindings.get(taskId);
    if (status !== 'cancelled' || !binding) return;
    // Its result until the run, which cancels the A2A task, stores its own.
    binding.result ??= { isError: true, content: [{ type: 'text', text: 'The MCP task was cancelled; its A2A task is being canceled.' }] };
    binding.abort.abort(new Error('The MCP task was cancelled.'));
  }

  /** Lists the task-augmented calls' tasks (plain calls are not MCP tasks to the client). */
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.inner.listTasks(cursor, sessionId);
  }

  /** Whether `taskId` stands for a plain (not task-augmented) call. */
  isPlain(taskId: string): boolean {
    return this.bindings.get(taskId)?.plain ?? false;
  }

  /** The signal that aborts when the MCP task is cancelled. */
  signalOf(taskId: string): AbortSignal {
    return this.bindings.get(taskId)?.abort.signal ?? AbortSignal.abort();
  }

  /** Records the A2A task an MCP task follows. */
  bind(taskId: string, a2aTaskId: string): void {
    const binding = this.bindings.get(taskId);
    if (binding) binding.a2aTaskId = a2aTaskId;
  }

  /** The A2A task id an MCP task follows (undefined before the agent names it, or for an unknown id). */
  a2aTaskOf(taskId: string): string | undefined {
    return this.bindings.get(taskId)?.a2aTaskId;
  }

  /**
   * Ends an MCP task with its tool result: `completed` or `failed` as the
   * result says, `cancelled` when `cancelled` is true. A task already
   * cancelled by the client keeps that status and gets the result. Returns
   * whether the status changed (then the client should hear of it).
   */
  async finish(taskId: string, result: CallToolResult, cancelled = false): Promise<boolean> {
    const binding = this.bindings.get(taskId);
    if (binding?.task) {
      binding.result = result;
      binding.task.status = cancelled ? 'cancelled' : result.isError ? 'failed' : 'completed';
      return false;
    }
    const task = await this.inner.getTask(taskId);
    if (!task || !binding) return false;
    if (isTerminal(task.status) || cancelled) {
      binding.result = result;
      if (isTerminal(task.status)) return false;
      await this.inner.updateTaskStatus(taskId, 'cancelled', 'The A2A task was canceled.');
      return true;
    }
    await this.inner.storeTaskResult(taskId, result.isError ? 'failed' : 'completed', result);
    return true;
  }

  /** Drops every task and its timers. Runs under way end on their own; their A2A tasks are not canceled. */
  cleanup(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.bindings.clear();
    this.inner.cleanup();
  }
}
