import { parseArgs } from 'node:util';
import { escapeJsonControls, stripControls } from '@taskwire/client';
import { cardCheck, inspectCard } from './card-report.js';
import { resolveCredentials } from './client-credentials.js';
import type { CheckResult } from './checks.js';
import { runChecks } from './checks.js';
import { isLoopbackHost } from './page-guard.js';
import { startInspector } from './server.js';
import type { Credentials } from './transports.js';
import { clientFor } from './transports.js';

/** Where `taskwire inspect` writes, and what stops it. */
export interface InspectIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C: stops the page's server. */
  readonly signal?: AbortSignal;
}

/** The help text of `taskwire inspect` (and `taskwire-inspect`). */
export const INSPECT_USAGE = `Usage: taskwire inspect [url] [options]

Starts a local web page (it prints its URL; it opens nothing) that inspects an A2A agent:
its card and the card's problems, every transport probed, live conversations with the
raw events, tasks, and a check battery.

  taskwire inspect --check <url>    runs the checks without a page; exits 1 if one fails

Options:
  --port <n>          the page's port (default: a free one)
  --host <h>          where to listen (default 127.0.0.1; any other address warns: the page's URL,
                      with its token, is then all another machine needs)
  --check             run the card report and the check battery, print them, exit
  --json              with --check: print the results as JSON
  --api-key <key>     send x-api-key (or set TASKWIRE_API_KEY)
  --bearer <token>    send Authorization: Bearer <token>
  --trust-origin <o>  also send the credentials to origin <o> (repeatable; by default they go
                      to the agent URL's origin only, e.g. not to a gRPC interface on another port)
  --token-url <url>   with --check: get a bearer token by OAuth client credentials from <url>,
                      with --client-id <id> and --client-secret <s> (or TASKWIRE_CLIENT_SECRET)
  --interface <n>     with --check: use supportedInterfaces[n] (default: the one the client picks)
  --timeout <ms>      with --check: time limit of the card request, each probe, each check (defaults 10000, 5000, 15000)
  --quick <text>      with --check: a message the agent answers at once (default "echo taskwire inspector")
  --slow <text>       with --check: a message that keeps it working, streaming (default "slow 40 100")
  -h, --help          this help

Exit codes: 0 ok, 1 a check failed, 2 usage error, 3 the agent's card could not be used.`;

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      check: { type: 'boolean' },
      json: { type: 'boolean' },
      'api-key': { type: 'string' },
      bearer: { type: 'string' },
      'trust-origin': { type: 'string', multiple: true },
      'token-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      interface: { type: 'string' },
      timeout: { type: 'string' },
      quick: { type: 'string' },
      slow: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The card's name as a line shows it: a string, cut at 200 characters. */
const agentName = (name: unknown) => (typeof name !== 'string' ? '(a card with no name)' : name.length > 200 ? `${name.slice(0, 200)}...` : name);

const withScheme = (url: string) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);

function checkReport(results: readonly CheckResult[]): string {
  const mark = { passed: 'PASS', failed: 'FAIL', 'not-run': 'SKIP' } as const;
  return results.map((r) => `${mark[r.status]}  ${r.name}\n${r.evidence.map((e) => `      ${e}`).join('\n')}\n`).join('');
}

async function check(url: string, credentials: Credentials, values: ReturnType<typeof parse>['values'], io: InspectIo): Promise<number> {
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  const report = await inspectCard(url, credentials, timeoutMs);
  if (!report.card) {
    const lines = report.problems.map((p) => `  ${p.severity} ${p.path} [${p.rule}]: ${p.message}\n`).join('');
    io.stderr.write(`taskwire inspect: the agent's card at ${report.cardUrl} cannot be used:\n${lines}`);
    return 3;
  }
  const index = values.interface === undefined ? undefined : Number(values.interface);
  const client = clientFor(report.card, index, credentials, url);
  const card = cardCheck(report);
  let results: CheckResult[];
  try {
    results = [card, ...(await runChecks(client, { quickText: values.quick, slowText: values.slow, ...(timeoutMs !== undefined && { timeoutMs }) }))];
  } finally {
    await client.close().catch(() => undefined);
  }
  const iface = client.interface!;
  if (values.json) io.stdout.write(`${JSON.stringify({ agent: url, interface: iface, probes: report.probes, checks: results }, null, 2)}\n`);
  else {
    io.stdout.write(`Checking ${agentName(report.card.name)} over ${iface.protocolBinding} ${iface.protocolVersion} at ${iface.url}\n`);
    io.stdout.write(checkReport(results));
    const failed = results.filter((r) => r.status === 'failed').length;
    io.stdout.write(failed === 0 ? 'All checks passed.\n' : `${failed} of ${results.length} checks failed.\n`);
  }
  return results.some((r) => r.status === 'failed') ? 1 : 0;
}

/**
 * `io` that prints what agents send (card fields, answers, error messages,
 * URLs) as text: human output and stderr without control characters (see
 * `stripControls`), `--json` output with DEL and C1 escaped (the same JSON
 * value, see `escapeJsonControls`).
 */
function terminalSafe(io: InspectIo, json: boolean): InspectIo {
  const out = json ? escapeJsonControls : stripControls;
  return { ...io, stdout: { write: (text: string) => io.stdout.write(out(text)) }, stderr: { write: (text: string) => io.stderr.write(stripControls(text)) } };
}

/**
 * Runs `taskwire inspect` with `argv` (the arguments after `inspect`):
 * serves the page until `io.signal` aborts (resolving 0), or with
 * `--check` runs the card report and the check battery and resolves with
 * the exit code (0 all passed, 1 one failed, 2 usage, 3 no usable card).
 * What it prints carries no control character an agent sent (newline and
 * tab aside); `--json` prints the exact values. Never throws.
 */
export async function runInspect(argv: readonly string[], raw: InspectIo): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    raw.stderr.write(`taskwire inspect: ${stripControls((error as Error).message)}\n${INSPECT_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const io = terminalSafe(raw, values.check === true && values.json === true);
  if (values.help) {
    io.stdout.write(`${INSPECT_USAGE}\n`);
    return 0;
  }
  const url = positionals[0] && withScheme(positionals[0]);
  const tokenUrl = values['token-url'];
  const grant = tokenUrl ? { tokenUrl, clientId: values['client-id'] ?? '', clientSecret: values['client-secret'] ?? io.env.TASKWIRE_CLIENT_SECRET ?? '' } : undefined;
  const trustedOrigins = values['trust-origin'];
  const given = { apiKey: values['api-key'] ?? io.env.TASKWIRE_API_KEY, bearer: values.bearer, ...(trustedOrigins && { trustedOrigins }), ...(grant && { clientCredentials: grant }) };
  if (positionals.length > 1 || (values.check && !url) || (values.interface !== undefined && !/^\d+$/.test(values.interface)) || (values.timeout !== undefined && !/^[1-9]\d*$/.test(values.timeout))) {
    io.stderr.write(`taskwire inspect: ${values.check && !url ? '--check needs the agent URL' : 'give at most one agent URL (and --interface, --timeout whole numbers)'}\n${INSPECT_USAGE}\n`);
    return 2;
  }
  try {
    if (values.check) return await check(url!, (await resolveCredentials(given)) as Credentials, values, io);
    const inspector = await startInspector({ ...(values.port && { port: Number(values.port) }), ...(values.host && { host: values.host }), ...(url && { agentUrl: url }) });
    if (values.host && !isLoopbackHost(values.host)) {
      io.stderr.write(`taskwire inspect: warning: --host ${values.host} is not this machine's loopback: whoever can reach it and has the URL below (its token) can use the inspector, and the agents and credentials it is given\n`);
    }
    io.stdout.write(`Taskwire inspector: ${inspector.url}\n(open it in a browser; the token in the URL is what lets the page in: keep it to yourself; Ctrl-C stops it)\n`);
    await new Promise<void>((resolve) => {
      if (io.signal?.aborted) resolve();
      io.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await inspector.close();
    return 0;
  } catch (error) {
    io.stderr.write(`taskwire inspect: ${(error as Error).message}\n`);
    return 1;
  }
}
