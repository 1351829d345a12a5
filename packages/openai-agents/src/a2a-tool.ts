import type { FunctionTool } from '@openai/agents';
import { Agent, tool } from '@openai/agents';
import type { A2AToolOptions } from '@taskwire/client';
import { remoteAgentCalls, toolDescription, toolName } from '@taskwire/client';
import * as z from 'zod';
import { RemoteAgentModel } from './remote-model.js';

/** The tool's parameters (strict: `taskId` is null unless the model continues an earlier task of the remote agent). */
export const a2aToolParameters = z.object({
  message: z.string().describe('What to ask or tell the remote agent'),
  taskId: z.string().nullable().describe('Only to continue an earlier task of the remote agent: the taskId of that result; else null'),
});

/**
 * Another A2A agent as an Agents SDK tool, on `@taskwire/client`'s
 * `remoteAgentCalls`. A call sends the model's `message` (on the task
 * `taskId` names, if any), follows the task (streamed when the card
 * allows, polled otherwise) and returns its final state as JSON
 * (`A2AToolOutput`: `state`, `taskId`, `text`, `artifacts`, ...).
 *
 * When the remote agent asks for input, the calling run is interrupted:
 * its `interruptions` hold a call of the tool `<name>_asks` whose arguments
 * are a `RemoteQuestionData` (the remote `question` and `taskId`), kept in
 * the run's `RunState` like any approval (the tool is an agent as a tool:
 * its nested run is part of that state). Answer it with
 * `state.reject(item, { message: answer })` (the message goes to the
 * remote task as its follow-up; `approve` sends `yes`), or, served with
 * `openaiAgent`, with the user's next message on the task (see
 * `answerApprovals`); then run the state again. The run's abort signal
 * cancels the remote task; errors of the remote agent go to the model as
 * the SDK's tool errors do.
 */
export function a2aTool(options: A2AToolOptions): FunctionTool<unknown, typeof a2aToolParameters> {
  const name = toolName(options);
  const askTool = `${name}_asks`.slice(0, 64);
  const asks = tool({
    name: askTool,
    description: `The agent "${name}" asks for input: the user answers`,
    parameters: z.object({ type: z.string(), agent: z.string(), taskId: z.string(), question: z.string() }),
    needsApproval: true,
    execute: () => 'yes',
  });
  const model = new RemoteAgentModel(remoteAgentCalls({ ...options, progress: false }), name, askTool);
  const remote = new Agent({ name, instructions: 'Relays the call to a remote A2A agent', model, tools: [asks] });
  return remote.asTool({
    toolName: name,
    toolDescription: toolDescription(options),
    parameters: a2aToolParameters,
    inputBuilder: ({ params }) => JSON.stringify(params),
  });
}
