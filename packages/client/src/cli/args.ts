import { parseArgs as parseNodeArgs } from 'node:util';
import { originOf } from '../auth/origins.js';

import { UsageError } from '../auth/credential-flags.js';

export { UsageError };

/** The parsed command line. */
export interface CliArgs {
  readonly command: string | undefined;
  readonly positionals: readonly string[];
  readonly json: boolean;
  readonly help: boolean;
  /** Say on stderr which transport (binding, version, endpoint) each command uses. */
  readonly verbose: boolean;
  readonly state: string | undefined;
  readonly url: string | undefined;
  readonly apiKey: string | undefined;
  /** A bearer token (`--token`). */
  readonly token: string | undefined;
  /** OAuth 2.0 client credentials: `--client-id`, `--client-secret`, `--token-url` or `--issuer`, `--scope`, `--resource`. */
  readonly oauth: {
    readonly clientId: string | undefined;
    readonly clientSecret: string | undefined;
    readonly tokenUrl: string | undefined;
    readonly issuer: string | undefined;
    readonly scopes: readonly string[];
    readonly resource: string | undefined;
  };
  readonly headers: Readonly<Record<string, string>>;
  /** A2A extension URIs every call asks for (`--extension`, repeatable). */
  readonly extensions: readonly string[];
  /** Origins besides the agent's that may receive the credentials (`--trust-origin`, repeatable). */
  readonly trustedOrigins: readonly string[];
  readonly transports: readonly string[];
  readonly fresh: boolean;
  readonly timeoutMs: number | undefined;
  readonly context: string | undefined;
  readonly status: string | undefined;
  readonly pageSize: number | undefined;
  readonly pageToken: string | undefined;
}

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} needs a whole number (got "${value}")`);
  return Number(value);
}

function header(line: string): [string, string] {
  const at = line.indexOf(':');
  if (at <= 0) throw new UsageError(`--header needs "Name: value" (got "${line}")`);
  return [line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim()];
}

function extensionUri(value: string): string {
  const uri = value.trim();
  if (uri === '' || uri.includes(',')) throw new UsageError(`--extension needs one extension URI (repeat --extension for more; got "${value}")`);
  return uri;
}

function trustedOrigin(value: string): string {
  if (originOf(value) === undefined) throw new UsageError(`--trust-origin needs an origin such as https://agent.example or 127.0.0.1:50051 (got "${value}")`);
  return value;
}

/** Parses `argv` (without the node and script paths); throws {@link UsageError} on a bad option. */
export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseNodeArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        verbose: { type: 'boolean', short: 'v' },
        state: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        token: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'token-url': { type: 'string' },
        issuer: { type: 'string' },
        scope: { type: 'string', multiple: true },
        resource: { type: 'string' },
        header: { type: 'string', multiple: true, short: 'H' },
        extension: { type: 'string', multiple: true },
        'trust-origin': { type: 'string', multiple: true },
        transport: { type: 'string', multiple: true },
        new: { type: 'boolean' },
        timeout: { type: 'string' },
        context: { type: 'string' },
        status: { type: 'string' },
        'page-size': { type: 'string' },
        'page-token': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  return {
    command,
    positionals: rest,
    json: values.json ?? false,
    help: values.help ?? false,
    verbose: values.verbose ?? false,
    state: values.state,
    url: values.url,
    apiKey: values['api-key'],
    token: values.token,
    oauth: {
      clientId: values['client-id'],
      clientSecret: values['client-secret'],
      tokenUrl: values['token-url'],
      issuer: values.issuer,
      scopes: (values.scope ?? []).flatMap((s) => s.split(' ')).filter(Boolean),
      resource: values.resource,
    },
    headers: Object.fromEntries((values.header ?? []).map(header)),
    extensions: (values.extension ?? []).map(extensionUri),
    trustedOrigins: (values['trust-origin'] ?? []).map(trustedOrigin),
    transports: values.transport ?? [],
    fresh: values.new ?? false,
    timeoutMs: count('timeout', values.timeout),
    context: values.context,
    status: values.status,
    pageSize: count('page-size', values['page-size']),
    pageToken: values['page-token'],
  };
}

/** The help text. */
export const USAGE = `Usage: taskwire <command> [options]

Commands:
  send <url> <text...>     send a message; continues the conversation saved for <url>
  stream <url> <text...>   the same, printing the agent's events as they come
  get [url] <taskId>       show a task
  list [url]               list tasks (--context <id>, --status <state>, --page-size <n>, --page-token <t>)
  cancel [url] <taskId>    cancel a task
  watch [url] <taskId>     follow a task: a live status line with progress, then its artifacts
  card <url>               show the agent card
  inspect [url]            a local web page that inspects the agent (needs @taskwire/inspector;
                           taskwire inspect --help for its options, --check <url> for CI)
  mcp <url>                the agent as an MCP server on stdio, or --http <port> (needs @taskwire/mcp;
                           taskwire mcp --help for its options)

<url> may leave out http:// (127.0.0.1:41241). [url] may be left out: the last agent
used is remembered (or set --url / TASKWIRE_URL).

Options:
  --json                   machine-readable output (stream and watch print one JSON event per line)
  --new                    start a new conversation instead of continuing the saved one
  --state <file>           the conversation state file (default ~/.taskwire/conversations.json, or TASKWIRE_STATE)
  --api-key <key>          send x-api-key (or set TASKWIRE_API_KEY)
  --token <token>          send Authorization: Bearer <token> (or set TASKWIRE_TOKEN)
  --client-id <id>         get tokens with OAuth 2.0 client credentials; the secret comes from
                           TASKWIRE_CLIENT_SECRET (or --client-secret, visible to other users)
  --token-url <url>        the token endpoint (or --issuer <url> to discover it)
  --scope <scope>          a scope to ask for (repeatable); --resource <uri> the audience
  -H, --header <'N: v'>    send a header with every request (repeatable)
  --extension <uri>        ask for an A2A extension (repeatable); send and stream then
                           say which extensions the agent activated
  --trust-origin <origin>  another origin that may receive the credentials above (repeatable), e.g.
                           127.0.0.1:50051 for a gRPC port; by default they go only to <url>'s
                           origin, never to an interface or redirect elsewhere
  --transport <binding>    preferred binding: JSONRPC, HTTP+JSON, GRPC or WS (repeatable, in order)
  -v, --verbose            say which transport each command uses (on stderr)
  --timeout <ms>           time limit of each call
  -h, --help               this help

Exit codes: 0 success (including an agent asking for input), 1 the agent failed
(task failed, rejected or canceled, or an A2A error), 2 usage error, 3 the agent
could not be reached or offers nothing this client speaks.`;
