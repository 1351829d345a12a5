import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext, TaskStore } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';

/**
 * The peer of the HTTP benchmark: an `@a2a-js/sdk` 1.3.0 agent that does
 * what the reference agent does for the two benchmarked inputs.
 * - `echo <x>`: the task, then completed with an agent message `<x>`;
 * - `slow <n> [<ms>]`: the task, then n rounds of a working status update
 *   (`metadata.progress`) and an `output` artifact chunk (`append` from the
 *   second, `lastChunk` on the last), then completed with an agent message.
 */

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });

function agentMessage(ctx: RequestContext, value: string): Message {
  return {
    messageId: randomUUID(),
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: Role.ROLE_AGENT,
    parts: [text(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function status(ctx: RequestContext, state: TaskState, message?: Message, metadata?: Record<string, unknown>) {
  return AgentEvent.statusUpdate({
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    metadata,
  });
}

const SLOW = /^slow\s+(\d+)(?:\s+(\d+))?\s*$/i;

/** The peer's executor (see the module comment). */
export const peerExecutor: AgentExecutor = {
  async execute(ctx: RequestContext, bus: ExecutionEventBus) {
    const first = ctx.userMessage.parts[0]?.content;
    const input = first?.$case === 'text' ? first.value.trim() : '';
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
    }
    const slow = SLOW.exec(input);
    if (slow) {
      const total = Number(slow[1]);
      const delayMs = slow[2] === undefined ? 100 : Number(slow[2]);
      for (let current = 1; current <= total; current++) {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, undefined, { progress: { current, total } }));
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            artifact: { artifactId: 'output', name: 'output', description: '', parts: [text(`chunk ${current} of ${total}\n`)], metadata: undefined, extensions: [] },
            append: current > 1,
            lastChunk: current === total,
            metadata: undefined,
          }),
        );
      }
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED, agentMessage(ctx, `Done: ${total} chunks.`)));
    } else {
      const reply = input.toLowerCase().startsWith('echo ') ? input.slice(5) : `You said: ${input}`;
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED, agentMessage(ctx, reply)));
    }
    bus.finished();
  },
  // The SDK gives cancelTask the task id alone, so the canceled status goes out
  // with an empty contextId, which its JSON leaves out: a spec violation
  // (context_id is REQUIRED) that packages/inspector/test/peer-cancel.test.ts
  // relies on, so that our client is tested against it.
  async cancelTask(taskId: string, bus: ExecutionEventBus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
};

/** The peer's card: JSON-RPC at `url`, streaming on. */
export function peerCard(url: string): AgentCard {
  return {
    name: 'a2a-js peer',
    description: 'Echo and slow streaming, like the Taskwire reference agent',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}

/** The peer's request handler: the executor above on `store` (default: its in-memory task store). */
export function peerRequestHandler(url: string, store: TaskStore = new InMemoryTaskStore()): DefaultRequestHandler {
  return new DefaultRequestHandler(peerCard(url), store, peerExecutor);
}
