import { openai } from '@ai-sdk/openai';
import type { AiSdkSource } from '@taskwire/ai-sdk';
import type { AgentCard } from '@taskwire/core';
import type { Chunk, Prompt } from '@taskwire/ai-sdk/testing';
import { finish, lastOf, scriptedModel, text, toolCall, toolOutputs, userText } from '@taskwire/ai-sdk/testing';
import type { LanguageModel } from 'ai';
import { tool, ToolLoopAgent } from 'ai';
import * as z from 'zod';

/** What the mock model says when it cannot help. */
export const HELP = 'I tell the weather (try "weather in Lisbon") and book trips (try "book Lisbon": I ask before booking).';

/** The city a text names after "in" or "book" (default Lisbon). */
function cityOf(said: string): string {
  return /(?:in|book)\s+([A-Z][\w-]*)/i.exec(said)?.[1] ?? 'Lisbon';
}

/**
 * The mock model: calls `forecast` for "weather", `bookTrip` for "book"
 * (which waits for the user's approval), streams many words slowly for
 * "slow" (to try a cancel), and reports a tool's result in words.
 */
function mockTurn(prompt: Prompt): Chunk[] {
  const said = userText(prompt);
  if (said === undefined) {
    const denied = JSON.stringify(lastOf(prompt)).includes('execution-denied');
    const [output] = toolOutputs(prompt) as ({ city: string; celsius?: number; sky?: string; booking?: string } | undefined)[];
    if (denied || !output) return [...text('Fine, I booked nothing.'), finish()];
    if (output.booking) return [...text(`Booked: ${output.booking}.`), finish()];
    return [...text(`It is ${output.sky} and `, `${output.celsius} °C `, `in ${output.city}.`), finish()];
  }
  if (/weather/i.test(said)) return [toolCall('forecast', { city: cityOf(said) }), finish('tool-calls')];
  if (/book/i.test(said)) return [toolCall('bookTrip', { city: cityOf(said) }), finish('tool-calls')];
  if (/slow/i.test(said)) return [...text(...Array.from({ length: 200 }, (_, i) => `word${i} `)), finish()];
  return [...text(HELP), finish()];
}

/** The model: OpenAI's (`OPENAI_MODEL`, default gpt-5-mini) when `OPENAI_API_KEY` is set, else the mock. */
export function chooseModel(env: Readonly<Record<string, string | undefined>> = process.env): { model: LanguageModel; name: string } {
  if (env.OPENAI_API_KEY) {
    const id = env.OPENAI_MODEL ?? 'gpt-5-mini';
    return { model: openai(id), name: `OpenAI ${id}` };
  }
  return { model: scriptedModel(mockTurn, 20), name: 'a mock model (set OPENAI_API_KEY for OpenAI)' };
}

/** The AI SDK agent: a forecast tool, and a booking tool that needs the user's approval. */
export function travelAgent(model: LanguageModel): AiSdkSource {
  const forecast = tool({
    description: 'The weather forecast of a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21, sky: 'sunny' }),
  });
  const bookTrip = tool({
    description: 'Books a trip to a city (the user approves it first)',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, booking: `a trip to ${city}, reference TW-${city.slice(0, 3).toUpperCase()}-1` }),
  });
  return new ToolLoopAgent({
    model,
    instructions: `You are a travel assistant. ${HELP} When a booking is not approved, do not retry it.`,
    tools: { forecast, bookTrip },
    toolApproval: { bookTrip: 'user-approval' },
  });
}

/** The agent's card; the server adds its interfaces. */
export const travelCard: AgentCard = {
  name: 'Taskwire AI SDK travel agent',
  description: 'An AI SDK ToolLoopAgent served over A2A: tells the weather and books trips after your approval.',
  supportedInterfaces: [],
  version: '0.1.0',
  capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    { id: 'weather', name: 'Weather', description: 'The forecast of a city.', tags: ['tools'], examples: ['weather in Lisbon'] },
    { id: 'book', name: 'Book a trip', description: 'Books a trip after you approve it.', tags: ['approval'], examples: ['book Lisbon'] },
  ],
};
