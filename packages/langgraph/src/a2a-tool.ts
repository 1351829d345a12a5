import type { DynamicStructuredTool } from '@langchain/core/tools';
import { tool } from '@langchain/core/tools';
import type { A2AToolOptions } from '@taskwire/client';
import { finalOutput, remoteAgentCalls, toolDescription, toolName } from '@taskwire/client';
import * as z from 'zod';

/** The tool's input: what the model asks, and the task it answers when the remote agent asked for input. */
export const a2aToolSchema = z.object({
  message: z.string().describe('What to ask or tell the remote agent'),
  taskId: z.string().optional().describe('Only to answer a remote agent that asked for input: the taskId of that result (the same task continues)'),
});

/**
 * Another A2A agent as a LangChain tool (for a graph's `ToolNode`, an agent
 * of `createReactAgent`, or `model.bindTools`), on `@taskwire/client`'s
 * `remoteAgentCalls`. A call sends the model's `message` (on the task
 * `taskId` names, to answer an agent that asked for input), follows the task
 * (streamed when the card allows, polled otherwise) and returns its final
 * state as JSON (`A2AToolOutput`: `state`, `taskId`, `text`, `artifacts`,
 * ...); when the agent asks for input the result has `state:
 * 'input-required'`, its `question` and the `taskId` the model answers on.
 * The run's abort signal cancels the remote task; errors of the remote agent
 * are thrown (a `ToolNode` hands them to the model).
 */
export function a2aTool(options: A2AToolOptions): DynamicStructuredTool<typeof a2aToolSchema> {
  const call = remoteAgentCalls({ ...options, progress: false });
  return tool(async (input, config) => JSON.stringify(await finalOutput(call(input, config?.signal))), {
    name: toolName(options),
    description: toolDescription(options),
    schema: a2aToolSchema,
  }) as DynamicStructuredTool<typeof a2aToolSchema>;
}
