/**
 * `@taskwire/ai-sdk/testing`: a scripted mock model (on the AI SDK's own
 * `MockLanguageModelV4` from `ai/test`) to run an agent without a provider:
 * in tests, examples, and to try a setup before an API key is at hand.
 */
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** One chunk of a language model's stream (the provider spec's stream part), loosely typed for scripts. */
export type Chunk = Record<string, unknown> & { type: string };
/** The prompt the SDK gives the model on one call. */
export type Prompt = MockLanguageModelV4['doStreamCalls'][number]['prompt'];

/** What the mock model's token counts say: 11 in, 7 out. */
export const MOCK_USAGE = {
  inputTokens: { total: 11, noCache: 11, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};

/** A text block streamed as these deltas. */
export function text(...deltas: string[]): Chunk[] {
  return [{ type: 'text-start', id: 't' }, ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }];
}

/** A reasoning block. */
export function reasoning(delta: string): Chunk[] {
  return [{ type: 'reasoning-start', id: 'r' }, { type: 'reasoning-delta', id: 'r', delta }, { type: 'reasoning-end', id: 'r' }];
}

/** A call of tool `toolName` with `input`. */
export function toolCall(toolName: string, input: unknown, toolCallId = `call-${toolName}`): Chunk {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** The end of a model call (`tool-calls` when it called tools). */
export function finish(reason: 'stop' | 'tool-calls' = 'stop'): Chunk {
  return { type: 'finish', finishReason: { unified: reason, raw: undefined }, usage: MOCK_USAGE };
}

/** The last message of a prompt. */
export function lastOf(prompt: Prompt): Prompt[number] {
  return prompt[prompt.length - 1]!;
}

/** The text of the prompt's last message when it is the user's, else undefined. */
export function userText(prompt: Prompt): string | undefined {
  const last = lastOf(prompt);
  return last.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : undefined;
}

/** The outputs of the tool results in the prompt's last message (a tool message), as JSON values. */
export function toolOutputs(prompt: Prompt): unknown[] {
  const last = lastOf(prompt);
  if (last.role !== 'tool') return [];
  return last.content.flatMap((part) => (part.type === 'tool-result' ? [(part.output as { value?: unknown }).value] : []));
}

/** The chunks of one call as a whole result (what `generateText` and `agent.generate()` get). */
function generated(chunks: Chunk[]) {
  const content: Record<string, unknown>[] = [];
  let end: Chunk | undefined;
  for (const chunk of chunks) {
    const last = content.at(-1);
    if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') {
      const type = chunk.type === 'text-delta' ? 'text' : 'reasoning';
      if (last?.type === type) last.text = `${last.text as string}${chunk.delta as string}`;
      else content.push({ type, text: chunk.delta });
    } else if (chunk.type === 'tool-call') content.push({ ...chunk });
    else if (chunk.type === 'error') throw chunk.error;
    else if (chunk.type === 'finish') end = chunk;
  }
  return { content, finishReason: end?.finishReason ?? { unified: 'stop', raw: undefined }, usage: MOCK_USAGE, warnings: [] };
}

/**
 * A mock model (`ai/test`, id `mock-model`) whose every call streams the
 * chunks `script` returns for its prompt and call number (from 0),
 * `delayMs` apart (default: no delay), or returns them whole to
 * `generateText`. It takes `https:` URLs itself (the SDK does not download
 * them). Its `doStreamCalls` and `doGenerateCalls` record every call.
 */
export function scriptedModel(script: (prompt: Prompt, call: number) => Chunk[], delayMs: number | null = null): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    modelId: 'mock-model',
    supportedUrls: { '*/*': [/^https:\/\//] },
    doStream: async ({ prompt }) => ({
      stream: simulateReadableStream({ chunks: script(prompt, calls++) as never[], chunkDelayInMs: delayMs, initialDelayInMs: null }),
    }),
    doGenerate: async ({ prompt }) => generated(script(prompt, calls++)) as never,
  });
}
