// The CLI's --extension: the URIs go out with the call, and what the agent activated is said.
import type { Agent } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/cli/main.js';
import { runMain, serveForCli } from './cli-run.js';

const TIMESTAMP = 'https://example.com/ext/timestamp/v1';
const OTHER = 'https://example.com/ext/other/v1';

/** Activates the timestamp extension when asked for it, and says what was requested. */
const agent: Agent = async (ctx) => {
  ctx.extensions.activate(TIMESTAMP);
  await ctx.complete(`requested: ${ctx.extensions.requested.join(' ') || 'none'}`);
};

const cli = serveForCli(agent);

describe('taskwire --extension', () => {
  it('send asks for every --extension and prints the activated set', async () => {
    const sent = await runMain(['send', cli.served.url, 'hi', '--extension', TIMESTAMP, '--extension', OTHER], cli.home);
    expect(sent.code).toBe(EXIT.ok);
    expect(sent.out).toContain(`requested: ${TIMESTAMP} ${OTHER}\n`);
    expect(sent.out).toContain(`(extensions activated: ${TIMESTAMP})\n`);
  });

  it('send --json carries the activated set; without --extension nothing is asked or said', async () => {
    const json = JSON.parse((await runMain(['send', cli.served.url, 'hi', '--new', '--json', '--extension', OTHER], cli.home)).out);
    expect(json.text).toBe(`requested: ${OTHER}`);
    expect(json.extensions).toEqual([]);
    const plain = await runMain(['send', cli.served.url, 'hi', '--new'], cli.home);
    expect(plain.out).toContain('requested: none\n');
    expect(plain.out).not.toContain('extensions activated');
  });

  it('stream prints the activated set after the events, over every transport it picks', async () => {
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      const streamed = await runMain(['stream', cli.served.url, 'hi', '--new', '--transport', transport, '--extension', TIMESTAMP], cli.home);
      expect(streamed.code).toBe(EXIT.ok);
      expect(streamed.out).toMatch(new RegExp(`\\(completed\\)\\n\\(extensions activated: ${TIMESTAMP.replace(/[./]/g, '\\$&')}\\)\\n$`));
    }
  });

  it('refuses an --extension that is not one URI', async () => {
    const refused = await runMain(['send', cli.served.url, 'hi', '--extension', `${TIMESTAMP},${OTHER}`], cli.home);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.err).toContain('--extension needs one extension URI');
  });
});
