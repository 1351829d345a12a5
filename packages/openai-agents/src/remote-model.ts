import type { AgentInputItem, Model, ModelRequest, ModelResponse } from '@openai/agents';
import { Usage } from '@openai/agents';
import type { A2AToolCall, A2AToolOutput } from '@taskwire/client';
import { finalOutput } from '@taskwire/client';

/** The arguments of the call that stands for a remote agent's question (the interruption the calling run shows). */
export interface RemoteQuestionData {
  readonly type: 'a2a-input-required';
  /** The remote agent's tool name. */
  readonly agent: string;
  /** The remote task that waits for the answer. */
  readonly taskId: string;
  /** What the remote agent asks. */
  readonly question: string;
}

/** The remote question that `args` (a function call's arguments, as JSON text) carries, if any. */
export function remoteQuestionOf(args: string | undefined): RemoteQuestionData | undefined {
  try {
    const data = JSON.parse(args ?? '') as Partial<RemoteQuestionData> | null;
    return data?.type === 'a2a-input-required' && typeof data.taskId === 'string' && typeof data.question === 'string' ? (data as RemoteQuestionData) : undefined;
  } catch {
    return undefined;
  }
}

type Item = Record<string, any>;
type StreamEvent = ReturnType<Model['getStreamedResponse']> extends AsyncIterable<infer E> ? E : never;

/** The text of a function call result's output (a string, or a text output item). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const item = output as { text?: unknown } | null;
  return typeof item?.text === 'string' ? item.text : JSON.stringify(output);
}

/**
 * The model of the agent that stands for a remote A2A agent inside an
 * `a2aTool`: each turn is one exchange with the remote agent, no language
 * model involved. The run's input (the tool call, as JSON) is sent; a
 * remote task that asks for input becomes a call of `askTool` (which needs
 * approval: the calling run pauses with it), and the answer to that call
 * (the rejection message the user gave, or `yes` when approved) is sent to
 * the remote task as its follow-up; any other end is the final output, the
 * JSON of `A2AToolOutput`.
 */
export class RemoteAgentModel implements Model {
  constructor(
    private readonly call: (input: A2AToolCall, signal?: AbortSignal) => AsyncIterable<A2AToolOutput>,
    private readonly agent: string,
    private readonly askTool: string,
  ) {}

  /** What this turn sends: the answer to the last question, else the tool call the run started with. */
  private static nextSend(request: ModelRequest): A2AToolCall {
    const items = (typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input) as Item[];
    const last = items.at(-1);
    if (last?.type === 'function_call_result') {
      const asked = items.find((i) => i.type === 'function_call' && i.callId === last.callId);
      return { message: outputText(last.output), taskId: remoteQuestionOf(asked?.arguments)?.taskId };
    }
    const first = items.find((i) => i.role === 'user') as AgentInputItem & { content: unknown };
    return JSON.parse(typeof first.content === 'string' ? first.content : outputText((first.content as unknown[])[0])) as A2AToolCall;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const result = await finalOutput(this.call(RemoteAgentModel.nextSend(request), request.signal));
    if (result.state === 'input-required' && result.taskId) {
      const question: RemoteQuestionData = { type: 'a2a-input-required', agent: this.agent, taskId: result.taskId, question: result.message ?? 'The agent needs input.' };
      const callId = `ask-${crypto.randomUUID()}`;
      return { usage: new Usage(), output: [{ type: 'function_call', callId, name: this.askTool, arguments: JSON.stringify(question), status: 'completed' }] };
    }
    const text = JSON.stringify(result);
    return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }] };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncGenerator<StreamEvent> {
    const response = await this.getResponse(request);
    yield { type: 'response_done', response: { id: `a2a-${crypto.randomUUID()}`, usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: response.output as never } };
  }
}
