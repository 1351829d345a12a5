// A scripted Agents SDK `Model` for the tests (not exported by the
// package): each call answers with the next step of a script, streamed.
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
import { Usage } from '@openai/agents';

/** What a model streams. */
type StreamEvent = ReturnType<Model['getStreamedResponse']> extends AsyncIterable<infer E> ? E : never;

/** One model response: text (streamed as these deltas) and/or function calls. */
export interface Step {
  readonly text?: readonly string[];
  readonly calls?: readonly { readonly name: string; readonly arguments: unknown; readonly callId?: string }[];
  /** Throw this instead of answering. */
  readonly error?: string;
  /** Wait this long between deltas, in ms (0: none). */
  readonly delayMs?: number;
  /** Awaited with the request's signal once the response has started, before the deltas. */
  readonly hold?: (signal: AbortSignal | undefined) => Promise<void>;
}

/** A fake model that plays `script(request, call)` and records its requests. */
export class FakeModel implements Model {
  readonly requests: ModelRequest[] = [];

  constructor(private readonly script: (request: ModelRequest, call: number) => Step) {}

  private next(request: ModelRequest): Step {
    this.requests.push(request);
    return this.script(request, this.requests.length - 1);
  }

  private static response(step: Step, call: number): ModelResponse {
    const output: ModelResponse['output'] = [];
    if (step.text) output.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text.join('') }] });
    for (const [i, c] of (step.calls ?? []).entries()) {
      output.push({ type: 'function_call', callId: c.callId ?? `call-${call}-${i}`, name: c.name, arguments: JSON.stringify(c.arguments), status: 'completed' });
    }
    return { usage: new Usage({ requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 }), output, responseId: `response-${call}` };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const step = this.next(request);
    if (step.error) throw new Error(step.error);
    return FakeModel.response(step, this.requests.length - 1);
  }

  async *getStreamedResponse(request: ModelRequest): AsyncGenerator<StreamEvent> {
    const step = this.next(request);
    const call = this.requests.length - 1;
    yield { type: 'response_started' as const };
    if (step.error) throw new Error(step.error);
    await step.hold?.(request.signal);
    for (const delta of step.text ?? []) {
      if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      request.signal?.throwIfAborted();
      yield { type: 'output_text_delta' as const, delta };
    }
    const response = FakeModel.response(step, call);
    yield { type: 'response_done' as const, response: { id: response.responseId!, usage: { requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 }, output: response.output as never } };
  }
}
