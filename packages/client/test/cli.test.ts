// The `taskwire` CLI, run in-process against the reference agent served for real.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '@taskwire/core';
import { QUOTES, referenceAgent } from '@taskwire/reference-agent';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/cli/main.js';
import { EXIT } from '../src/cli/main.js';
import { createClient } from '../src/create-client.js';
import type { CliResult } from './cli-run.js';
import { runMain, serveForCli } from './cli-run.js';

/** A promise and the function that resolves it. */
function opening(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Opened by a test when it is ready to see a `gated` task make progress. */
let gate = opening();

/** Streams one artifact in three appended chunks, a status message before each (the way a model's tokens come). */
async function interleaved(ctx: Parameters<Agent>[0]): Promise<void> {
  const chunks = ['Sunsets ', 'are ', 'free.'];
  for (const [i, text] of chunks.entries()) {
    await ctx.working(`writing part ${i + 1}`);
    await ctx.artifact({ name: 'draft', text }, { append: i > 0, lastChunk: i === chunks.length - 1 });
  }
  await ctx.complete('Done.');
}

/** The reference agent, plus `gated`: three rounds of progress and chunks once the test opens the gate; and `interleaved`. */
const agent: Agent = async (ctx) => {
  if (ctx.text === 'interleaved') return interleaved(ctx);
  if (ctx.text !== 'gated') return referenceAgent(ctx) as Promise<void>;
  await gate.promise;
  for (let current = 1; current <= 3; current++) {
    await ctx.working(undefined, { metadata: { progress: { current, total: 3 } } });
    await ctx.artifact({ name: 'output', text: `chunk ${current} of 3\n` }, { append: current > 1, lastChunk: current === 3 });
  }
  await ctx.complete('Done: 3 chunks.');
};

const cli = serveForCli(agent);

/** Runs the CLI in this process with this test's home. */
const run = (argv: readonly string[], extra: Partial<CliIo> = {}): Promise<CliResult> => runMain(argv, cli.home, extra);

const stateFile = () => join(cli.home, '.taskwire', 'conversations.json');

/** Starts a task without waiting for it (through the library client), and returns its id. */
async function startSlow(text: string): Promise<string> {
  const client = await createClient(cli.served.url);
  try {
    const sent = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately: true } });
    return 'task' in sent ? sent.task.id : '';
  } finally {
    await client.close();
  }
}

describe('taskwire send', () => {
  it('continues the conversation saved in the state file across runs', async () => {
    const ask = await run(['send', cli.served.url, 'provide', 'a', 'sunset', 'quote']);
    expect(ask.code).toBe(EXIT.ok);
    expect(ask.out).toMatch(/^Do you want Instagram, Pinterest, or General\?\n\(task \S+: input-required\)\n$/);
    const saved = JSON.parse(await readFile(stateFile(), 'utf8'));
    const first = saved.conversations[cli.served.url].taskId;
    expect(saved).toMatchObject({ lastUrl: cli.served.url, conversations: { [cli.served.url]: { state: 'TASK_STATE_INPUT_REQUIRED' } } });

    const quote = await run(['send', cli.served.url, 'insta']);
    expect(quote.code).toBe(EXIT.ok);
    expect(quote.out).toContain('--- quote ---\n');
    expect(quote.out).toContain(`(task ${first}: completed)`);

    const shorter = await run(['send', cli.served.url, 'make it shorter', '--json']);
    const reply = JSON.parse(shorter.out);
    expect(reply.task.id).not.toBe(first);
    expect(reply.task.history[0].referenceTaskIds).toEqual([first]);
    expect(reply.conversation.contextId).toBe(saved.conversations[cli.served.url].contextId);

    const fresh = await run(['send', cli.served.url, 'echo anew', '--new', '--json']);
    expect(JSON.parse(fresh.out).conversation.contextId).not.toBe(saved.conversations[cli.served.url].contextId);
  });

  it('exits 1 when the agent fails the task, with its words', async () => {
    const failed = await run(['send', cli.served.url, 'fail']);
    expect(failed.code).toBe(EXIT.agentFailure);
    expect(failed.out).toMatch(/^You asked me to fail, so this task failed\.\n\(task \S+: failed\)\n$/);
    expect((await run(['send', cli.served.url, 'reject', '--new'])).code).toBe(EXIT.agentFailure);
  });

  it('uses --state (or TASKWIRE_STATE) for the state file', async () => {
    const custom = join(cli.home, 'elsewhere.json');
    await run(['send', cli.served.url, 'echo a', '--state', custom]);
    expect(JSON.parse(await readFile(custom, 'utf8')).lastUrl).toBe(cli.served.url);
    const viaEnv = join(cli.home, 'env.json');
    await run(['send', cli.served.url, 'echo b'], { env: { TASKWIRE_STATE: viaEnv } });
    expect(JSON.parse(await readFile(viaEnv, 'utf8')).lastUrl).toBe(cli.served.url);
  });
});

describe('taskwire stream, get, list, cancel, watch, card', () => {
  it('stream prints events as they come; --json prints one event per line', async () => {
    const text = await run(['stream', cli.served.url, 'slow 3 1']);
    expect(text.code).toBe(EXIT.ok);
    expect(text.out).toContain('--- output ---\nchunk 1 of 3\nchunk 2 of 3\nchunk 3 of 3\n');
    expect(text.out).toContain('Done: 3 chunks.\n(completed)\n');
    const json = await run(['stream', cli.served.url, 'echo lines', '--json', '--new']);
    const events = json.out.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0].response.task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(events.at(-1).response.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('get, list and cancel use the last agent when the URL is left out', async () => {
    const sent = JSON.parse((await run(['send', cli.served.url, 'echo first', '--new', '--json', '--transport', 'HTTP+JSON'])).out);
    const id = sent.task.id;
    const got = await run(['get', id]);
    expect(got.code).toBe(EXIT.ok);
    expect(got.out).toBe(`task ${id}  completed  (context ${sent.task.contextId})\nuser: echo first\nagent: first\n`);
    const listed = JSON.parse((await run(['list', '--json', '--status', 'completed', '--context', sent.task.contextId])).out);
    expect(listed.tasks.map((t: { id: string }) => t.id)).toEqual([id]);
    const paged = await run(['list', cli.served.url, '--page-size', '1']);
    expect(paged.out).toMatch(/\(1 of \d+ tasks; more with --page-token \S+\)\n$/);

    const running = await startSlow('slow 500 20');
    const canceled = await run(['cancel', running]);
    expect(canceled).toEqual({ code: EXIT.ok, out: `task ${running}: canceled\n`, err: '' });
  });

  it('watch shows a status line with progress, then the artifacts', async () => {
    gate = opening();
    const id = await startSlow('gated');
    let out = '';
    // The task makes progress only once watch has printed its first line.
    const watched = await run(['watch', cli.served.url, id, '--transport', 'GRPC'], { stdout: { write: (t: string) => ((out += t), gate.resolve()) } });
    expect(watched.code).toBe(EXIT.ok);
    expect(out.split('\n').filter((l) => l.startsWith('working'))).toEqual([
      'working  [########................] 1/3 33%',
      'working  [################........] 2/3 67%',
      'working  [########################] 3/3 100%',
    ]);
    expect(out).toMatch(/\nDone: 3 chunks\.\n--- output ---\nchunk 1 of 3\nchunk 2 of 3\nchunk 3 of 3\n\(task \S+: completed\)\n$/);
  });

  it('watch on a terminal rewrites one status line in place', async () => {
    gate = opening();
    const id = await startSlow('gated');
    let tty = '';
    const live = await run(['watch', cli.served.url, id], { stdout: { write: (t: string) => ((tty += t), gate.resolve()), isTTY: true } });
    expect(live.code).toBe(EXIT.ok);
    expect(tty).toContain('\r\u001b[2Kworking  [################........] 2/3 67%\r\u001b[2K');
  });

  it('watch on a finished task shows how it ended; a failed one exits 1', async () => {
    const failed = JSON.parse((await run(['send', cli.served.url, 'fail', '--new', '--json'])).out).task.id;
    const watched = await run(['watch', failed]);
    expect(watched.code).toBe(EXIT.agentFailure);
    expect(watched.out).toBe(`failed\nYou asked me to fail, so this task failed.\n(task ${failed}: failed)\n`);
  });

  it('card shows the interfaces; --json the card itself', async () => {
    const card = await run(['card', cli.served.url]);
    expect(card.code).toBe(EXIT.ok);
    expect(card.out).toContain('Taskwire reference agent');
    expect(card.out).toContain(`JSONRPC 1.0  ${cli.served.url}/a2a/jsonrpc`);
    expect(card.out).toContain('Streaming: yes');
    expect(JSON.parse((await run(['card', cli.served.url, '--json'])).out).supportedInterfaces).toHaveLength(4);
  });
});

describe('taskwire output and arguments for people', () => {
  it('stream prints the task id first and closes each artifact before the agent speaks again', async () => {
    const slow = await run(['stream', cli.served.url, 'slow 3 1', '--new']);
    expect(slow.out).toMatch(/^task [0-9a-f-]{36}\n/);
    expect(slow.out).toContain('--- output ---\nchunk 1 of 3\nchunk 2 of 3\nchunk 3 of 3\n---\nDone: 3 chunks.\n(completed)\n');
    await run(['stream', cli.served.url, 'provide a sunset quote', '--new']);
    const quote = await run(['stream', cli.served.url, 'insta']);
    // The quote has no line break of its own: it still ends before the status message.
    expect(quote.out).toContain(`--- quote ---\n${QUOTES.insta}\n---\nHere is your insta quote.\n(completed)\n`);
  });

  it('stream joins the chunks of one artifact into one text when the agent speaks between them', async () => {
    const streamed = await run(['stream', cli.served.url, 'interleaved', '--new']);
    expect(streamed.code).toBe(EXIT.ok);
    expect(streamed.out).toContain('--- draft ---\nSunsets are free.\n---\n');
    expect(streamed.out.match(/--- draft ---/g)).toHaveLength(1);
    // What the agent said meanwhile comes after the artifact, in order.
    expect(streamed.out).toMatch(/---\nwriting part 2\nwriting part 3\nDone\.\n\(completed\)\n$/);
  });

  it('send and get join the chunks of a streamed artifact into one text, as stream does', async () => {
    const sent = await run(['send', cli.served.url, 'interleaved', '--new']);
    expect(sent.code).toBe(EXIT.ok);
    expect(sent.out).toMatch(/^Done\.\n--- draft ---\nSunsets are free\.\n\(task \S+: completed\)\n$/);
    const id = /\(task (\S+): completed\)/.exec(sent.out)![1]!;
    const got = await run(['get', cli.served.url, id]);
    expect(got.code).toBe(EXIT.ok);
    expect(got.out).toMatch(/\n--- draft ---\nSunsets are free\.\n$/);
  });

  it('send prints streamed chunks without blank lines between them', async () => {
    const sent = await run(['send', cli.served.url, 'slow 3 1', '--new']);
    expect(sent.out).toMatch(/^Done: 3 chunks\.\n--- output ---\nchunk 1 of 3\nchunk 2 of 3\nchunk 3 of 3\n\(task \S+: completed\)\n$/);
  });

  it('--verbose says which transport each command uses; --transport takes any case and ws', async () => {
    const rest = await run(['send', cli.served.url, 'echo v', '--new', '--verbose', '--transport', 'http+json']);
    expect(rest.err).toBe(`taskwire: using HTTP+JSON 1.0 at ${cli.served.url}/a2a/rest\n`);
    const ws = await run(['get', cli.served.url, JSON.parse((await run(['send', cli.served.url, 'echo w', '--new', '--json'])).out).task.id, '-v', '--transport', 'ws']);
    expect(ws.code).toBe(EXIT.ok);
    expect(ws.err).toMatch(/^taskwire: using WebSocket \(https:\/\/taskwire\.dev\/bindings\/trpc-ws\/v1\) 1\.0 at ws:\/\/127\.0\.0\.1:\d+\/a2a\/ws\n$/);
  });

  it('list --status takes working as well as TASK_STATE_WORKING', async () => {
    const running = await startSlow('slow 500 20');
    const client = await createClient(cli.served.url);
    await client.waitForTask(running, { until: ['TASK_STATE_WORKING'] });
    await client.close();
    for (const status of ['working', 'TASK_STATE_WORKING', 'task_state_working']) {
      const listed = JSON.parse((await run(['list', cli.served.url, '--status', status, '--json'])).out);
      expect(listed.tasks.map((t: { id: string }) => t.id)).toContain(running);
      expect(listed.tasks.every((t: { status: { state: string } }) => t.status.state === 'TASK_STATE_WORKING')).toBe(true);
    }
    await run(['cancel', cli.served.url, running]);
  });

  it('a URL without a scheme gets http://', async () => {
    const bare = cli.served.url.replace(/^http:\/\//, '');
    const sent = await run(['send', bare, 'echo bare', '--new']);
    expect(sent.code).toBe(EXIT.ok);
    expect(sent.out).toMatch(/^bare\n/);
    expect(JSON.parse(await readFile(stateFile(), 'utf8')).lastUrl).toBe(cli.served.url);
    expect((await run(['card', bare])).out).toContain('Taskwire reference agent');
    expect((await run(['list', '--url', bare, '--page-size', '1'])).code).toBe(EXIT.ok);
  });
});
