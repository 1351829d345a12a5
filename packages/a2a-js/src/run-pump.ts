import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { AgentContext, TaskState } from '@taskwire/core';
import { A2AError, isTerminal } from '@taskwire/core';
import { fromJsArtifact, fromJsMessage, fromJsState, sayOf } from './shapes.js';

type Pattern = 'undetermined' | 'message' | 'task';

/**
 * Commits what an executor publishes, one event at a time and in order (the
 * bus is synchronous; commits are not), following a2a-js's stream pattern.
 * An event is taken at once when nothing before it is still being
 * committed, so an executor that publishes synchronously has its first
 * commit started within its `publish` (as a native agent's would be), and
 * events that commit nothing (a Task event setting the scene) cost no
 * promise.
 */
export class RunPump {
  private pattern: Pattern = 'undetermined';
  /** Settles once the events being committed, and those queued behind them, are; undefined while none is. */
  private chain: Promise<void> | undefined = undefined;
  /** Events published while one is being committed, in order. */
  private readonly queue: AgentExecutionEvent[] = [];
  /** True while an event is being taken or committed (the next ones queue behind it). */
  private busy = false;
  private stopped = false;
  /** The first error of a commit that the run must end with. */
  failure: unknown = undefined;
  /** Ids of the artifacts the task has (from earlier turns, or this run's updates); made at the first artifact update. */
  private artifacts: Set<string> | undefined = undefined;

  /**
   * `given` is the state of the task the executor was handed (a follow-up
   * turn's), which its Task event may repeat. `updatesFirst` takes a status
   * or artifact update before any Task or Message event as the task's (as
   * a2a-js 0.3's server does for a task it has stored; 1.x refuses it).
   */
  constructor(
    private readonly ctx: AgentContext,
    private readonly given: TaskState | undefined,
    private readonly updatesFirst = false,
  ) {}

  /** True when the executor answered with a message (no task) or the call was refused. */
  get answered(): boolean {
    return this.pattern === 'message' || this.stopped;
  }

  /** Takes one published event: committed after those before it. */
  push(event: AgentExecutionEvent): void {
    if (this.busy) {
      this.queue.push(event);
      return;
    }
    this.busy = true;
    this.chain = this.from(event);
  }

  /** Settles once every event pushed so far is committed (or dropped); undefined when they all are already. */
  drained(): Promise<void> | undefined {
    return this.chain;
  }

  /** Commits `event`, then the queued ones, synchronously until one has a commit to wait for: its promise, then the rest. */
  private from(event: AgentExecutionEvent | undefined): Promise<void> | undefined {
    for (; event !== undefined; event = this.queue.shift()) {
      const pending = this.commit(event);
      if (pending !== undefined) return pending.then(this.next, this.refusedThenNext);
    }
    this.busy = false;
    this.chain = undefined;
    return undefined;
  }

  private readonly next = (): Promise<void> | undefined => this.from(this.queue.shift());

  private readonly refusedThenNext = (error: unknown): Promise<void> | undefined => {
    this.refused(error);
    return this.next();
  };

  /** Starts committing one event: the commit's promise, or undefined when there is nothing to wait for. */
  private commit(event: AgentExecutionEvent): Promise<void> | undefined {
    // After a cancel the executor's events still go in (its own canceled status, within the grace); once the task is
    // final they are refused, and dropped below.
    if (this.stopped) return undefined;
    try {
      return this.apply(event);
    } catch (error) {
      this.refused(error);
      return undefined;
    }
  }

  /** A commit failed: the run ends with the error, unless the run was aborted (a cancel's race). */
  private refused(error: unknown): void {
    if (this.ctx.signal.aborted) return;
    this.stopped = true;
    this.failure ??= error;
  }

  private apply(event: AgentExecutionEvent): Promise<void> | undefined {
    const ctx = this.ctx;
    if (this.pattern === 'undetermined') {
      if (event.kind === 'message') {
        this.pattern = 'message';
        const message = fromJsMessage(event.data);
        return ctx.reply({ parts: message.parts, ...(message.metadata && { metadata: message.metadata }), ...(message.extensions && { extensions: message.extensions }) });
      }
      if (event.kind === 'task') {
        this.pattern = 'task';
        const state = fromJsState(event.data.status?.state);
        // A Task event sets the scene; a state of its own (not the one the executor was handed) is a status change.
        if (state && state !== 'TASK_STATE_SUBMITTED' && state !== this.given && state !== ctx.task.status.state) return this.status(state, event.data.status?.message, undefined);
        return;
      }
      if (this.updatesFirst) this.pattern = 'task';
      else {
        this.stopped = true;
        return ctx.refuse(new A2AError('UnsupportedOperation', `Received ${event.kind} before initial 'Message'/'Task' event.`), {
          blocking: new A2AError('Internal', `The agent published a ${event.kind} before its Task or Message event`),
        });
      }
    }
    // A message answered the call: there is no task for anything after it.
    if (this.pattern === 'message') return;
    if (event.kind === 'statusUpdate') {
      const state = fromJsState(event.data.status?.state);
      if (state === undefined) throw new A2AError('InvalidAgentResponse', 'The agent published a status update without a state');
      return this.status(state, event.data.status?.message, event.data.metadata);
    }
    if (event.kind === 'artifactUpdate') {
      const { artifact, append, lastChunk, metadata } = event.data;
      if (!artifact) throw new A2AError('InvalidAgentResponse', 'The agent published an artifact update without an artifact');
      const ours = fromJsArtifact(artifact);
      // An append to an artifact the task does not have yet is its first chunk, as a2a-js's server takes it.
      const artifacts = (this.artifacts ??= new Set(ctx.task.artifacts?.map((artifact) => artifact.artifactId)));
      const known = artifacts.has(ours.artifactId);
      artifacts.add(ours.artifactId);
      return ctx.emit({ kind: 'artifact', artifact: ours, append: (append && known) || undefined, lastChunk: lastChunk || undefined, metadata });
    }
    this.stopped = true;
    return ctx.refuse(new A2AError('UnsupportedOperation', `Stream ordering violation: received ${event.kind} in task lifecycle stream.`));
  }

  private status(state: TaskState, message: Parameters<typeof fromJsMessage>[0] | undefined, metadata: Record<string, unknown> | undefined): Promise<void> {
    // Nothing after a final status goes in: taken as said now, before its commit (one that fails stops the run anyway).
    if (isTerminal(state)) this.stopped = true;
    return this.ctx.emit({ kind: 'status', state, message: message && sayOf(message), metadata });
  }
}
