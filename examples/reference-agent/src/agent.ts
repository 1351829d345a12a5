import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Agent, AgentContext, Task } from '@taskwire/core';
import { PLATFORM_QUESTION, platformOf, QUOTES, shorten } from './quotes.js';

const SLOW = /^slow\s+(\d+)(?:\s+(\d+))?\s*$/i;
/** `auth wait <ms>`: auth-required, then the agent goes on by itself (a credential obtained out of band). */
const AUTH_WAIT = /^auth\s+wait\s+(\d+)\s*$/i;
/** `ask linger <ms>`: input-required, then the run keeps going a while (tidying up) before it ends. */
const ASK_LINGER = /^ask\s+linger\s+(\d+)\s*$/i;

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

/** Asks for a credential, gets it out of band after `ms`, and finishes the task without another message. */
async function authWait(ctx: AgentContext, ms: number): Promise<void> {
  await ctx.authRequired(`Waiting ${ms} ms for a credential out of band; no need to answer.`);
  await sleep(ms, undefined, { signal: ctx.signal });
  await ctx.working('Got the credential out of band; going on.');
  await ctx.complete('Authorized out of band; done.');
}

/** Asks a question, then keeps running `ms` (its run is still ending when the answer may already have started the next). */
async function askLinger(ctx: AgentContext, ms: number): Promise<void> {
  await ctx.inputRequired(`What next? Answer "slow <n> [<ms>]" or anything else (I keep tidying up for ${ms} ms).`);
  await sleep(ms).catch(() => undefined);
}

/**
 * The reference agent, routed on the text of the message:
 * `echo <x>`, `ping` (answered with a message `pong`, no task), anything
 * with `quote` (then insta / pinterest / general on the same task), `make it
 * shorter` (referencing a completed quote task), `slow <n> [<ms>]`, `auth`,
 * `auth wait <ms>`, `ask linger <ms>`, `fail`, `reject`, and a help answer
 * otherwise. On a continued task, `slow <n> [<ms>]` streams on it.
 */
export const referenceAgent: Agent = async (ctx) => {
  const text = ctx.text.trim();
  if (ctx.isContinuation) {
    if (ctx.task.history?.some((m) => m.role === 'ROLE_AGENT' && m.parts.some((p) => 'text' in p && p.text.endsWith(PLATFORM_QUESTION)))) {
      return continueQuote(ctx);
    }
    const continued = SLOW.exec(text);
    if (continued) return slow(ctx, Number(continued[1]), continued[2] === undefined ? 100 : Number(continued[2]));
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
  const authWaitMatch = AUTH_WAIT.exec(text);
  if (authWaitMatch) return authWait(ctx, Number(authWaitMatch[1]));
  const lingerMatch = ASK_LINGER.exec(text);
  if (lingerMatch) return askLinger(ctx, Number(lingerMatch[1]));
  if (lower === 'auth') return ctx.authRequired('Please authenticate, then send any message on this task to continue.');
  if (lower === 'fail') return ctx.fail('You asked me to fail, so this task failed.');
  if (lower === 'reject') return ctx.reject('You asked me to reject this task, so I rejected it.');
  return ctx.complete(
    `I understand: "echo <text>", "ping", a request for a quote, "make it shorter" (referencing a quote task), "slow <n> [<ms>]", "auth", "auth wait <ms>", "ask linger <ms>", "fail" and "reject". You said: ${text}`,
  );
};
