// A Cloudflare Worker serving an A2A agent whose tasks live in D1 (binding
// `DB`): JSON-RPC and HTTP+JSON with SSE streams, the agent card, and
// streams that resume (Last-Event-ID) from the events stored in D1, from
// any isolate. One service per isolate, opened on its first request.
import { TaskService, type Agent } from '@taskwire/core';
import { createA2AHandler, httpInterfaces } from '@taskwire/server-http';
import { createSqliteTaskStore, d1Driver, type D1DatabaseLike } from '@taskwire/sqlite';

/** The Worker's bindings (wrangler.toml). */
export interface Env {
  readonly DB: D1DatabaseLike;
}

const SLOW = /^slow (\d+)$/;

/** `slow N`: N steps, each a progress update and a chunk of the `output` artifact, then completed; anything else is echoed. */
const agent: Agent = async (ctx) => {
  const slow = SLOW.exec(ctx.text.trim());
  if (!slow) return ctx.complete(`You said: ${ctx.text}`);
  const total = Number(slow[1]);
  for (let step = 1; step <= total && !ctx.signal.aborted; step++) {
    await ctx.working(`step ${step} of ${total}`);
    await ctx.artifact({ name: 'output', text: `chunk ${step} ` }, { append: step > 1, lastChunk: step === total });
  }
  if (!ctx.signal.aborted) await ctx.complete(`done: ${total} steps`);
};

let handler: Promise<ReturnType<typeof createA2AHandler>> | undefined;

/** The A2A handler of this isolate, on the D1 database (migrated on first use). */
async function open(env: Env, baseUrl: string) {
  const store = await createSqliteTaskStore({ driver: d1Driver(env.DB) });
  const card = {
    name: 'Workers agent',
    description: 'Echoes, or works in steps (`slow N`), with its tasks in D1',
    version: '1.0.0',
    supportedInterfaces: httpInterfaces(baseUrl),
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  return createA2AHandler({ service: new TaskService({ store, agent, card }) });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    handler ??= open(env, new URL(request.url).origin);
    return (await handler).fetch(request);
  },
};
