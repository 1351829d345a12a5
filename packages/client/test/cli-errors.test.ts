// The `taskwire` CLI's usage errors and exit codes, run in-process against the reference agent served for real.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { referenceAgent } from '@taskwire/reference-agent';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/cli/main.js';
import { runMain, serveForCli } from './cli-run.js';

const cli = serveForCli(referenceAgent);
const run = (argv: readonly string[]) => runMain(argv, cli.home);

describe('taskwire errors and exit codes', () => {
  it.each([
    [[], /Usage: taskwire/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['send'], /send needs the agent's URL first/],
    [['send', 'http://127.0.0.1:1'], /send needs a message/],
    [['get'], /get needs the agent's URL/],
    [['list', '--status', 'sleepy', '--url', 'http://x'], /--status sleepy is not a task state/],
    [['send', '--bogus'], /Unknown option '--bogus'/],
    [['list', '--page-size', 'ten', '--url', 'http://x'], /--page-size needs a whole number/],
    [['send', '--transport', 'BOGUS', 'http://127.0.0.1:1', 'hi'], /--transport BOGUS is not a transport this CLI speaks; use one of JSONRPC, HTTP\+JSON, GRPC, WS/],
    [['send', 'not-a-url', 'hi'], /send needs the agent's URL first \(got "not-a-url"\)/],
    [['list', '--url', 'nowhere'], /--url \(or TASKWIRE_URL\) "nowhere" is not a URL/],
  ])('usage error %j → exit 2', async (argv, message) => {
    const result = await run(argv as string[]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.err).toMatch(message);
  });

  it('--help prints the usage and exits 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.out).toContain('Exit codes: 0 success');
  });

  it('an unreachable agent exits 3, saying what to check', async () => {
    const result = await run(['card', 'http://127.0.0.1:1']);
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.err).toMatch(/Could not fetch the agent card at http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json .*check the URL/);
  });

  it('an A2A error from the agent exits 1 with its kind', async () => {
    const result = await run(['get', cli.served.url, 'no-such-task']);
    expect(result.code).toBe(EXIT.agentFailure);
    expect(result.err).toMatch(/the agent answered TaskNotFound \(-32001\): Task no-such-task was not found/);
  });

  it('a corrupt state file is a usage error that says what to do', async () => {
    const bad = join(cli.home, 'bad.json');
    await writeFile(bad, 'not json');
    const result = await run(['send', cli.served.url, 'echo x', '--state', bad]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.err).toMatch(/is not a taskwire state file; delete it or pass --state/);
  });
});
