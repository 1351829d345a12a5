// The agents of a2a-js-adapter-bench.ts: one a2a-js executor and the same
// agent written for Taskwire, and a server of either for the HTTP runs:
//   a2a-js-adapter-agents.ts <native|adapter>:<greet|work>   prints `READY <port>`, stops on SIGTERM
import type { Message } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { fromA2AExecutor } from '@taskwire/a2a-js';
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { serveA2A } from '@taskwire/server-http';
import { pathToFileURL } from 'node:url';

const part = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const textOf = (m: Message) => (m.parts[0]?.content?.$case === 'text' ? m.parts[0].content.value : '');

const now = () => new Date().toISOString();
const say = (taskId: string, contextId: string, value: string): Message => ({ messageId: crypto.randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts: [part(value)], metadata: undefined, extensions: [], referenceTaskIds: [] });
const status = (bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState, message?: Message) =>
  bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined }));

/**
 * The a2a-js executor: `greet` answers at once, `work` says it works, sends an artifact, then answers. Its helpers are
 * module functions, not closures made per call: tsx (esbuild's keepNames) would name each closure on every call, a
 * cost of the bench's loader that code compiled by tsc does not have and the native agent does not pay.
 */
export class BenchExecutor implements AgentExecutor {
  constructor(private readonly work: boolean) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() }, artifacts: [], history: [userMessage], metadata: undefined }));
    const text = textOf(userMessage);
    if (this.work) {
      status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING);
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: 'out', name: 'out', description: '', parts: [part(text.toUpperCase())], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
    }
    status(bus, taskId, contextId, TaskState.TASK_STATE_COMPLETED, say(taskId, contextId, `Hello, ${text}!`));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

/** The same agents written for Taskwire. */
export const native = (work: boolean): Agent =>
  async (ctx) => {
    if (work) {
      await ctx.working();
      await ctx.artifact({ artifactId: 'out', name: 'out', parts: [{ text: ctx.text.toUpperCase(), mediaType: 'text/plain' }] }, { lastChunk: true });
    }
    await ctx.complete(`Hello, ${ctx.text}!`);
  };

/** The agent a kind names: `native` or `adapter`, doing `work` or not. */
export function agentOf(kind: 'native' | 'adapter', work: boolean): Agent {
  return kind === 'native' ? native(work) : fromA2AExecutor(new BenchExecutor(work));
}

/** Serves the agent `kind:workload` names over JSON-RPC (memory store) until SIGTERM. */
async function serve(name: string): Promise<void> {
  const [kind, workload] = name.split(':') as ['native' | 'adapter', string];
  const service = new TaskService({ store: createMemoryTaskStore({ maxTasks: Infinity }), agent: agentOf(kind, workload === 'work') });
  const server = await serveA2A({ service });
  process.stdout.write(`READY ${new URL(server.url).port}\n`);
  const stop = async () => {
    await server.close();
    await service.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await serve(process.argv[2] ?? 'native:greet');
