import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import type { AgentContext, TaskState } from '@taskwire/core';
import { A2AError, isTerminal } from '@taskwire/core';
import { fromJsArtifact, fromJsMessage, fromJsState } from './shapes.js';

type Pattern = 'undetermined' | 'message' | 'task';

/**
 * Commits what an executor publishes, one event at a time and in order (the
 * bus is synchronous; commits are not), following a2a-js's stream pattern.
 */
export class RunPump {
  private pattern: Pattern = 'undetermined';
  private chain: Promise<void> = Promise.resolve();
  /** Events published while one is being committed, in order. */
  private readonly queue: AgentExecutionEvent[] = [];
  private pumping = false;
  private stopped = false;
  /** The first error of a commit that the run must end with. */
  failure: unknown = undefined;
  /** Ids of the artifacts the task has (from earlier turns, or this run's updates). */
  private readonly artifacts: Set<string>;

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
  ) {
    this.artifacts = new Set(ctx.task.artifacts?.map((artifact) => artifact.artifactId));
  }

  /** True when the executor answered with a message (no task) or the call was refused. */
  get answered(): boolean {
    return this.pattern === 'message' || this.stopped;
  }

  /** Takes one published event: committed after those before it. */
  push(event: AgentExecutionEvent): void {
    if (this.pumping) {
      this.queue.push(event);
      return;
    }
    this.pumping = true;
    this.chain = this.pump(event);
  }

  /** Resolves once every event pushed so far is committed (or dropped). */
  drained(): Promise<void> {
    return this.chain;
  }

  private async pump(first: AgentExecutionEvent): Promise<void> {
    for (let event: AgentExecutionEvent | undefined = first; event !== undefined; event = this.queue.shift()) await this.commit(event);
    this.pumping = false;
  }

  private async commit(event: AgentExecutionEvent): Promise<void> {
    const ctx = this.ctx;
    // After a cancel the executor's events still go in (its own canceled status, within the grace); once the task is
    // final they are refused, and dropped below.
    if (this.stopped) return;
    try {
      await this.apply(event);
    } catch (error) {
      if (ctx.signal.aborted) return;
      this.stopped = true;
      this.failure ??= error;
    }
  }

  private async apply(event: AgentExecutionEvent): Promise<void> {
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
      const known = this.artifacts.has(ours.artifactId);
      this.artifacts.add(ours.artifactId);
      return ctx.emit({ kind: 'artifact', artifact: ours, append: (append && known) || undefined, lastChunk: lastChunk || undefined, metadata });
    }
    this.stopped = true;
    return ctx.refuse(new A2AError('UnsupportedOperation', `Stream ordering violation: received ${event.kind} in task lifecycle stream.`));
  }

  private async status(state: TaskState, message: Parameters<typeof fromJsMessage>[0] | undefined, metadata: Record<string, unknown> | undefined): Promise<void> {
    const say = message ? (({ role: _role, messageId, ...rest }) => ({ ...rest, messageId }))(fromJsMessage(message)) : undefined;
    await this.ctx.emit({ kind: 'status', state, message: say, metadata });
    if (isTerminal(state)) this.stopped = true;
  }
}
