import type { Agent, AgentCard, CallOptions } from '@taskwire/core';
import { expect } from 'vitest';
import type { Harness } from '../harness.js';
import { SUITE_CARD, userMessage } from '../harness.js';
import { requirement } from '../requirement.js';

const TIMESTAMP = 'https://example.com/ext/timestamp/v1';
const TRACE = 'https://example.com/ext/trace/v1';
const REQUIRED = 'https://example.com/ext/required/v1';

/**
 * An agent that activates {@link TIMESTAMP} (and tries {@link TRACE}, which
 * counts only when asked for) at its start, then answers with what it saw:
 * the requested URIs and what `activate` returned, and asks for input on
 * `ask` (so the task can be continued).
 */
const extensionAgent: Agent = async (ctx) => {
  const stamped = ctx.extensions.activate(TIMESTAMP);
  const traced = ctx.extensions.activate(TRACE);
  const seen = `requested=${ctx.extensions.requested.join(',')} timestamp=${stamped} trace=${traced}`;
  await ctx.working();
  if (ctx.text === 'ask') return ctx.inputRequired(seen);
  await ctx.complete(seen);
};

/** The suite card, declaring the two extensions (and one more, required, when `required`). */
function cardWith(required: boolean): AgentCard {
  const extensions = [{ uri: TIMESTAMP }, { uri: TRACE }, ...(required ? [{ uri: REQUIRED, required: true }] : [])];
  return { ...SUITE_CARD, capabilities: { ...SUITE_CARD.capabilities, extensions } };
}

/** A call that asks for `uris`, and what its answer said was activated. */
function asking(uris: readonly string[]): { options: CallOptions; activated: () => readonly string[] | undefined } {
  let activated: readonly string[] | undefined;
  const options: CallOptions = { ...(uris.length > 0 && { headers: { 'a2a-extensions': uris.join(',') } }), onExtensions: (set) => (activated = set) };
  return { options, activated: () => activated };
}

async function sendAsking(h: Harness, uris: readonly string[], text = 'go', taskId?: string) {
  const call = asking(uris);
  const result = await h.client.unary('SendMessage', { message: userMessage(text, taskId ? { taskId } : {}) }, call.options);
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return { task: result.task, activated: call.activated() };
}

/** The text of a task's status message. */
function said(task: { status: { message?: { parts: readonly unknown[] } } }): string {
  const part = task.status.message?.parts[0] as { text?: string } | undefined;
  return part?.text ?? '';
}

/** A2A extensions (§4.6, §3.2.6 service parameters): requested, activated, required. */
export const extensionRequirements = [
  requirement('extensions-requested', '4.6.1', "the agent sees the extensions a request asks for, and activates only those asked for", async (h) => {
    const x = await h.withService({ agent: extensionAgent, card: cardWith(false) });
    const { task } = await sendAsking(x, [TIMESTAMP]);
    expect(said(task)).toBe(`requested=${TIMESTAMP} timestamp=true trace=false`);
    const none = await sendAsking(x, []);
    expect(said(none.task)).toBe('requested= timestamp=false trace=false');
  }),
  requirement('extensions-activated-unary', '4.6.1', 'a unary answer carries the extensions the agent activated (A2A-Extensions), and none when it activated none', async (h) => {
    const x = await h.withService({ agent: extensionAgent, card: cardWith(false) });
    expect((await sendAsking(x, [TIMESTAMP, TRACE])).activated).toEqual([TIMESTAMP, TRACE]);
    expect((await sendAsking(x, ['https://example.com/ext/unknown/v1', TRACE])).activated).toEqual([TRACE]);
    expect((await sendAsking(x, [])).activated).toEqual([]);
  }),
  requirement('extensions-activated-stream', '4.6.1', 'a stream carries the activated extensions from its opening, for a new task and a continued one', async (h) => {
    const x = await h.withService({ agent: extensionAgent, card: cardWith(false) });
    const first = asking([TIMESTAMP]);
    const events = await x.collect(x.client.stream('SendStreamingMessage', { message: userMessage('ask') }, first.options));
    expect(first.activated()).toEqual([TIMESTAMP]);
    const taskId = events.map((e) => ('task' in e.response ? e.response.task.id : 'statusUpdate' in e.response ? e.response.statusUpdate.taskId : undefined)).find(Boolean)!;
    await x.idle();
    const next = asking([TRACE]);
    await x.collect(x.client.stream('SendStreamingMessage', { message: userMessage('go', { taskId }) }, next.options));
    expect(next.activated()).toEqual([TRACE]);
  }),
  requirement('extensions-required', '3.3.4', 'a request that does not ask for a required extension is ExtensionSupportRequired (-32008) before the agent runs', async (h) => {
    let runs = 0;
    const counting: Agent = (ctx) => {
      runs++;
      return extensionAgent(ctx) as Promise<void>;
    };
    const x = await h.withService({ agent: counting, card: cardWith(true) });
    const refused = await x.error(x.client.unary('SendMessage', { message: userMessage('go') }, asking([TIMESTAMP]).options));
    expect(refused.code).toBe(-32008);
    expect(refused.kind).toBe('ExtensionSupportRequired');
    const stream = await x.error(() => x.collect(x.client.stream('SendStreamingMessage', { message: userMessage('go') })));
    expect(stream.code).toBe(-32008);
    expect(runs).toBe(0);
    const { task, activated } = await sendAsking(x, [REQUIRED, TIMESTAMP]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(activated).toEqual([TIMESTAMP]);
    expect(runs).toBe(1);
  }),
];
