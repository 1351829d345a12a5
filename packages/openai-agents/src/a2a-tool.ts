import type { FunctionTool } from '@openai/agents';
import { tool } from '@openai/agents';
import type { A2AToolOptions } from '@taskwire/client';
import { finalOutput, remoteAgentCalls, toolDescription, toolName } from '@taskwire/client';
import * as z from 'zod';

/** The tool's parameters (strict: `taskId` is null unless the model answers a remote agent that asked for input). */
export const a2aToolParameters = z.object({
  message: z.string().describe('What to ask or tell the remote agent'),
  taskId: z.string().nullable().describe('Only to answer a remote agent that asked for input: the taskId of that result (the same task continues); else null'),
});

/**
 * Another A2A agent as an Agents SDK function tool, on `@taskwire/client`'s
 * `remoteAgentCalls`. A call sends the model's `message` (on the task
 * `taskId` names, to answer an agent that asked for input), follows the task
 * (streamed when the card allows, polled otherwise) and returns its final
 * state as JSON (`A2AToolOutput`: `state`, `taskId`, `text`, `artifacts`,
 * ...); when the agent asks for input the result has `state:
 * 'input-required'`, its `question` and the `taskId` the model answers on.
 * The run's abort signal cancels the remote task; errors of the remote
 * agent go to the model as the SDK's tool errors do.
 */
export function a2aTool(options: A2AToolOptions): FunctionTool<unknown, typeof a2aToolParameters, string> {
  const call = remoteAgentCalls({ ...options, progress: false });
  return tool({
    name: toolName(options),
    description: toolDescription(options),
    parameters: a2aToolParameters,
    execute: async (input, _context, details) => JSON.stringify(await finalOutput(call(input, details?.signal))),
  });
}
