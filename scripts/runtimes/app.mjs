// The agent the runtime tests serve with @taskwire/server-http's fetch
// handler (createA2AHandler(...).fetch), as installed from the packed
// packages: the README quickstart's agent (input-required, then an artifact
// and completed), plus `slow`, which works in steps until canceled.
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { createA2AHandler, httpInterfaces } from '@taskwire/server-http';

/** Resolves after `ms`, or at once when `signal` aborts. */
const pause = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** @type {import('@taskwire/core').Agent} */
const agent = async (ctx) => {
  if (ctx.text === 'slow') {
    for (let step = 1; step <= 100 && !ctx.signal.aborted; step++) {
      await ctx.working(`step ${step}`);
      await pause(100, ctx.signal);
    }
    if (!ctx.signal.aborted) await ctx.complete('slow work done');
    return;
  }
  if (!ctx.isContinuation) return ctx.inputRequired('Which city?');
  await ctx.artifact({ name: 'forecast', text: `Sunny in ${ctx.text}` });
  await ctx.complete('Here is your forecast.');
};

/** The fetch handler of an agent served at `baseUrl` (its card lists JSON-RPC and HTTP+JSON there). */
export function a2aFetch(baseUrl) {
  const card = {
    name: 'Weather',
    description: 'Forecasts',
    version: '1.0.0',
    supportedInterfaces: httpInterfaces(baseUrl),
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const handler = createA2AHandler({ service: new TaskService({ store: createMemoryTaskStore(), agent, card }) });
  return (request) => handler.fetch(request);
}
