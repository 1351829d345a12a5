import type { A2AToolOptions, A2AToolOutput } from '@taskwire/client';
import { remoteAgentCalls, toolDescription } from '@taskwire/client';
import type { Tool } from 'ai';
import { tool } from 'ai';
import * as z from 'zod';

export type { A2AToolOptions, A2ATarget } from '@taskwire/client';

/** The tool's input: what the model asks, and the task it answers when the remote agent asked for input. */
export const a2aToolInput = z.object({
  message: z.string().describe('What to ask or tell the remote agent'),
  taskId: z
    .string()
    .optional()
    .describe('Only to answer a remote agent that asked for input: the taskId of that result (the same task continues)'),
});

/** The tool's input type. */
export type A2AToolInput = z.infer<typeof a2aToolInput>;

/**
 * Another A2A agent as an AI SDK tool, on `@taskwire/client`'s
 * `remoteAgentCalls`. Each call sends the model's `message` (on the task
 * `taskId` names, to answer an agent that asked for input) and follows the
 * task: streamed when the card says the agent streams, polled otherwise.
 * While it runs, the task as it stands is yielded as preliminary results
 * (progress for the UI); the final result has the task's state, its
 * artifacts' text and data, and the agent's last message. A task that
 * needs input ends the call with `state: 'input-required'`, the agent's
 * `question` and the `taskId` to answer on. An abort of the call (the
 * caller's `abortSignal`) cancels the remote task. Errors of the remote
 * agent (unreachable, refused) are thrown: the SDK hands them to the model
 * as a tool error.
 */
export function a2aTool(options: A2AToolOptions): Tool<A2AToolInput, A2AToolOutput> {
  const call = remoteAgentCalls(options);
  return tool({
    description: toolDescription(options),
    inputSchema: a2aToolInput,
    execute: (input, { abortSignal }) => call(input, abortSignal),
  });
}
