import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
import { Agent, tool, Usage } from '@openai/agents';
import { exampleCard } from '@taskwire/reference-agent/serve';
import * as z from 'zod';

/** What the stand-in model says when it cannot help. */
export const HELP = 'I tell the weather (try "weather in Lisbon") and book trips (try "book Lisbon": I ask before booking).';

type Output = ModelResponse['output'];
type StreamEvent = ReturnType<Model['getStreamedResponse']> extends AsyncIterable<infer E> ? E : never;

/** The last input item the model sees: the user's text, or a tool's output. */
function lastInput(request: ModelRequest): { said?: string; toolOutput?: string } {
  const last = (typeof request.input === 'string' ? { role: 'user', content: request.input } : request.input.at(-1)) as Record<string, any> | undefined;
  if (last?.type === 'function_call_result') return { toolOutput: typeof last.output === 'string' ? last.output : String(last.output?.text ?? '') };
  return { said: typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '') };
}

/**
 * The stand-in model's turn: text deltas, or one function call. "weather"
 * calls `forecast`, "book" calls `bookTrip` (which waits for the user's
 * approval), "slow" streams 200 words slowly (to try a cancel); a tool's
 * output is reported in words.
 */
function mockTurn(request: ModelRequest): { deltas: string[]; call?: { name: string; city: string }; delayMs?: number } {
  const { said, toolOutput } = lastInput(request);
  if (toolOutput !== undefined) {
    const result = /^\{/.test(toolOutput) ? (JSON.parse(toolOutput) as { city: string; celsius?: number; booking?: string }) : undefined;
    if (result?.booking) return { deltas: [`Booked: ${result.booking}.`] };
    if (result?.celsius !== undefined) return { deltas: ['It is sunny and ', `${result.celsius} °C `, `in ${result.city}.`] };
    return { deltas: ['Fine, I booked nothing.'] };
  }
  const city = /(?:in|book)\s+([A-Z][\w-]*)/i.exec(said ?? '')?.[1] ?? 'Lisbon';
  if (/weather/i.test(said ?? '')) return { deltas: [], call: { name: 'forecast', city } };
  if (/book/i.test(said ?? '')) return { deltas: [], call: { name: 'bookTrip', city } };
  if (/slow/i.test(said ?? '')) return { deltas: Array.from({ length: 200 }, (_, i) => `word${i} `), delayMs: 20 };
  return { deltas: [HELP] };
}

/** An Agents SDK `Model` that plays {@link mockTurn}, streamed, and honours the run's abort signal. */
export const mockModel: Model = {
  async getResponse(request) {
    const turn = mockTurn(request);
    return { usage: new Usage(), output: outputOf(turn.deltas.join(''), turn.call) };
  },
  async *getStreamedResponse(request): AsyncGenerator<StreamEvent> {
    const turn = mockTurn(request);
    yield { type: 'response_started' };
    for (const delta of turn.deltas) {
      if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
      request.signal?.throwIfAborted();
      yield { type: 'output_text_delta', delta };
    }
    const usage = { requests: 1, inputTokens: 0, outputTokens: turn.deltas.length, totalTokens: turn.deltas.length };
    yield { type: 'response_done', response: { id: crypto.randomUUID(), usage, output: outputOf(turn.deltas.join(''), turn.call) as never } };
  },
};

function outputOf(text: string, call?: { name: string; city: string }): Output {
  if (call) return [{ type: 'function_call', callId: `call-${crypto.randomUUID()}`, name: call.name, arguments: JSON.stringify({ city: call.city }), status: 'completed' }];
  return [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }];
}

/** The model: OpenAI's (`OPENAI_MODEL`, default gpt-5-mini) when `OPENAI_API_KEY` is set, else the stand-in. */
export function chooseModel(env: Readonly<Record<string, string | undefined>> = process.env): { model: Model | string; name: string } {
  if (env.OPENAI_API_KEY) {
    const id = env.OPENAI_MODEL ?? 'gpt-5-mini';
    return { model: id, name: `OpenAI ${id}` };
  }
  return { model: mockModel, name: 'a stand-in model (set OPENAI_API_KEY for OpenAI)' };
}

/** The Agents SDK agent: a forecast tool, and a booking tool that needs the user's approval. */
export function travelAgent(model: Model | string): Agent {
  const forecast = tool({
    name: 'forecast',
    description: 'The weather forecast of a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => JSON.stringify({ city, celsius: 21 }),
  });
  const bookTrip = tool({
    name: 'bookTrip',
    description: 'Books a trip to a city (the user approves it first)',
    parameters: z.object({ city: z.string() }),
    needsApproval: true,
    execute: async ({ city }) => JSON.stringify({ city, booking: `a trip to ${city}, reference TW-${city.slice(0, 3).toUpperCase()}-1` }),
  });
  return new Agent({ name: 'Travel', instructions: `You are a travel assistant. ${HELP} When a booking is rejected, do not retry it.`, model, tools: [forecast, bookTrip] });
}

/** The agent's card; the server adds its interfaces. */
export const travelCard = exampleCard('Taskwire Agents SDK travel agent', 'An OpenAI Agents SDK agent served over A2A: tells the weather and books trips after your approval.', [
  { id: 'weather', name: 'Weather', description: 'The forecast of a city.', tags: ['tools'], examples: ['weather in Lisbon'] },
  { id: 'book', name: 'Book a trip', description: 'Books a trip after you approve it.', tags: ['approval'], examples: ['book Lisbon'] },
]);
