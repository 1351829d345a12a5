import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage, AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { exampleCard } from '@taskwire/reference-agent/serve';
import * as z from 'zod';

/** What the fake model says when it cannot help. */
export const HELP = 'I tell the weather (try "weather in Lisbon") and book trips (try "book Lisbon": I ask before booking).';

const forecast = tool(async ({ city }) => JSON.stringify({ city, celsius: 21 }), {
  name: 'forecast',
  description: 'The weather forecast of a city',
  schema: z.object({ city: z.string() }),
});

/** Books a trip once the user approves: `interrupt()` pauses the graph (the task goes to input-required) until the answer. */
const bookTrip = tool(
  async ({ city }) => {
    const answer = String(interrupt(`Book a trip to ${city}? Answer "approve" or "deny".`));
    if (!/^\s*(approved?|yes|ok)\b/i.test(answer)) return JSON.stringify({ city, booked: false });
    return JSON.stringify({ city, booking: `a trip to ${city}, reference TW-${city.slice(0, 3).toUpperCase()}-1` });
  },
  { name: 'bookTrip', description: 'Books a trip to a city (the user approves it first)', schema: z.object({ city: z.string() }) },
);

/** A fake model turn that calls `name` with `{ city }`. */
const calling = (name: string, city: string) =>
  new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: crypto.randomUUID(), name, args: { city }, type: 'tool_call' }] })] });
/** A fake model turn that streams `text` (a character at a time, `sleep` ms apart). */
const saying = (text: string, sleep?: number) => new FakeListChatModel({ responses: [text], ...(sleep !== undefined && { sleep }) });

/**
 * The fake model of a turn, chosen from the last message: "weather" calls
 * `forecast`, "book" calls `bookTrip`, "slow" streams 200 words slowly (to
 * try a cancel); a tool's result is reported in words. Put your chat model
 * (with `bindTools([forecast, bookTrip])`) in its place.
 */
function modelFor(messages: readonly BaseMessage[]): BaseChatModel {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last)) {
    const result = JSON.parse(String(last.content)) as { city: string; celsius?: number; booking?: string };
    if (result.booking) return saying(`Booked: ${result.booking}.`);
    return saying(result.celsius === undefined ? 'Fine, I booked nothing.' : `It is sunny and ${result.celsius} °C in ${result.city}.`);
  }
  const said = last.text;
  const city = /(?:in|book)\s+([A-Z][\w-]*)/i.exec(said)?.[1] ?? 'Lisbon';
  if (/weather/i.test(said)) return calling('forecast', city);
  if (/book/i.test(said)) return calling('bookTrip', city);
  if (/slow/i.test(said)) return saying(Array.from({ length: 200 }, (_, i) => `word${i} `).join(''), 10);
  return saying(HELP);
}

/** The graph: a model node and a tool node in a loop, on the messages state, with an in-memory checkpointer (the A2A contextId is its thread). */
export function travelGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state, config) => ({ messages: [await modelFor(state.messages).invoke(state.messages, config)] }))
    .addNode('tools', new ToolNode([forecast, bookTrip]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });
}

/** The agent's card; the server adds its interfaces. */
export const travelCard = exampleCard('Taskwire LangGraph travel agent', 'A LangGraph.js graph served over A2A: tells the weather and books trips after your approval.', [
  { id: 'weather', name: 'Weather', description: 'The forecast of a city.', tags: ['tools'], examples: ['weather in Lisbon'] },
  { id: 'book', name: 'Book a trip', description: 'Books a trip after you approve it.', tags: ['approval'], examples: ['book Lisbon'] },
]);
