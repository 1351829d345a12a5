import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Agent, AgentContext, Task } from '@taskwire/core';
import { PLATFORM_QUESTION, platformOf, QUOTES, shorten } from './quotes.js';

const SLOW = /^slow\s+(\d+)(?:\s+(\d+))?\s*$/i;

/** The text of a task's `quote` artifact, if it has one. */
function quoteOf(task: Task): string | undefined {
  const artifact = task.artifacts?.find((a) => a.artifactId === 'quote');
  const part = artifact?.parts.find((p) => 'text' in p);
  return part && 'text' in part ? part.text : undefined;
}

async function continueQuote(ctx: AgentContext): Promise<void> {
  const platform = platformOf(ctx.text);
  if (!platform) return ctx.inputRequired(`I did not catch that. ${PLATFORM_QUESTION}`);
  await ctx.working(`Writing ${/^[aeiou]/i.test(platform) ? 'an' : 'a'} ${platform} quote…`);
  await ctx.artifact({ name: 'quote', text: QUOTES[platform]! });
  await ctx.complete(`Here is your ${platform} quote.`);
}

async function makeShorter(ctx: AgentContext): Promise<void> {
  const source = ctx.referencedTasks.find((t) => t.status.state === 'TASK_STATE_COMPLETED' && quoteOf(t));
  if (!source) {
    return ctx.complete('There is nothing to shorten: name a completed quote task in referenceTaskIds.');
  }
  await ctx.artifact({ name: 'quote', text: shorten(quoteOf(source)!) });
  await ctx.complete('Here is a shorter version.');
}

/** The longest `slow n 0` runs rounds without letting the event loop turn. */
const TIME_SLICE_MS = 1;

async function slow(ctx: AgentContext, total: number, delayMs: number): Promise<void> {
  let turnStarted = performance.now();
  for (let current = 1; current <= total; current++) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: ctx.signal });
    else if (performance.now() - turnStarted >= TIME_SLICE_MS) {
      // With no delay, still let other requests in at least every TIME_SLICE_MS (a long `slow n 0` must not starve them).
      await nextTurn();
      turnStarted = performance.now();
    }
    if (ctx.signal.aborted) return;
    await ctx.working(undefined, { metadata: { progress: { current, total } } });
    await ctx.artifact(
      { name: 'output', text: `chunk ${current} of ${total}\n` },
      { append: current > 1, lastChunk: current === total },
    );
  }
  await ctx.complete(`Done: ${total} chunks.`);
}

/**
 * The reference agent, routed on the text of the message:
 * `echo <x>`, `ping` (answered with a message `pong`, no task), anything
 * with `quote` (then insta / pinterest / general on the same task), `make it
 * shorter` (referencing a completed quote task), `slow <n> [<ms>]`, `auth`,
 * `fail`, `reject`, and a help answer otherwise.
 */
export const referenceAgent: Agent = async (ctx) => {
  const text = ctx.text.trim();
  if (ctx.isContinuation) {
    if (ctx.task.history?.some((m) => m.role === 'ROLE_AGENT' && m.parts.some((p) => 'text' in p && p.text.endsWith(PLATFORM_QUESTION)))) {
      return continueQuote(ctx);
    }
    return ctx.complete(`Thanks, you are authenticated. You said: ${text}`);
  }
  const lower = text.toLowerCase();
  if (lower.startsWith('echo ')) return ctx.complete(text.slice(5));
  if (lower === 'echo') return ctx.complete('');
  if (lower === 'ping') return ctx.reply('pong');
  const slowMatch = SLOW.exec(text);
  if (slowMatch) return slow(ctx, Number(slowMatch[1]), slowMatch[2] === undefined ? 100 : Number(slowMatch[2]));
  if (lower.includes('make it shorter')) return makeShorter(ctx);
  if (lower.includes('quote')) return ctx.inputRequired(PLATFORM_QUESTION);
  if (lower === 'auth') return ctx.authRequired('Please authenticate, then send any message on this task to continue.');
  if (lower === 'fail') return ctx.fail('You asked me to fail, so this task failed.');
  if (lower === 'reject') return ctx.reject('You asked me to reject this task, so I rejected it.');
  return ctx.complete(
    `I understand: "echo <text>", "ping", a request for a quote, "make it shorter" (referencing a quote task), "slow <n> [<ms>]", "auth", "fail" and "reject". You said: ${text}`,
  );
};
