// The command line of `taskwire-mcp`.
import { parseArgs } from 'node:util';
import type { CreateClientOptions, TokenProvider } from '@taskwire/client';
import { tokenProviderFromFlags, UsageError } from '@taskwire/client';

/** A command line that cannot run (the client's, so shared credential checks throw it too); exit code 2. */
export { UsageError };

/** What the command line asks for. */
export interface McpCommand {
  readonly help: boolean;
  readonly agentUrl: string;
  /** Streamable HTTP on this port instead of stdio. */
  readonly httpPort: number | undefined;
  readonly host: string;
  /** Host names --http also answers to (`--allowed-host`). */
  readonly allowedHosts: readonly string[];
  /** The token callers of --http must present (`--bridge-token` or TASKWIRE_MCP_TOKEN); undefined: none given. */
  readonly bridgeToken: string | undefined;
  /** The largest request body --http takes (bytes). */
  readonly maxBodyBytes: number | undefined;
  /** Idle time after which an --http session ends (ms). */
  readonly sessionIdleMs: number | undefined;
  /** Sessions --http keeps open at once. */
  readonly maxSessions: number | undefined;
  /** The name elicitations give the agent (`--name`); default its URL. */
  readonly agentName: string | undefined;
  readonly toolPrefix: string;
  readonly timeoutMs: number | undefined;
  /** Re-read the card this often (ms); 0: never. */
  readonly cardRefreshMs: number;
  readonly client: CreateClientOptions;
}

/** The help text. */
export const USAGE = `Usage: taskwire-mcp <agent-url> [options]

Serves the A2A agent at <agent-url> as an MCP server: a tool per skill of its
card (send_message without skills), get_task, list_tasks, cancel_task; the card
and the tasks as resources. stdio by default.

Options:
  --http <port>            serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio
  --host <address>         the address --http listens on (default 127.0.0.1); not loopback: a token is required
  --allowed-host <name>    a host name --http also answers to besides loopback names and --host (repeatable);
                           one that is not loopback (a LAN or proxy name): a token is required
  --bridge-token <token>   the token MCP clients must send to --http as Authorization: Bearer (or set
                           TASKWIRE_MCP_TOKEN); without it, a non-loopback --host or --allowed-host gets a
                           random one, printed once
  --max-body <bytes>       the largest request body --http takes (default 4194304)
  --session-idle <ms>      end an --http session after <ms> without requests (default 1800000)
  --max-sessions <n>       --http sessions open at once (default 100)
  --name <name>            how questions from the agent name it to the user (default: its URL)
  --token <token>          send Authorization: Bearer <token> (or set TASKWIRE_TOKEN)
  --api-key <key>          send x-api-key (or set TASKWIRE_API_KEY)
  --client-id <id>         get tokens with OAuth 2.0 client credentials; the secret comes from
                           TASKWIRE_CLIENT_SECRET (or --client-secret, visible to other users)
  --token-url <url>        the token endpoint (or --issuer <url> to discover it)
  --scope <scope>          a scope to ask for (repeatable); --resource <uri> the audience
  -H, --header <'N: v'>    send a header with every request to the agent (repeatable)
  --transport <binding>    preferred binding: JSONRPC, HTTP+JSON, GRPC or WS (repeatable, in order)
  --timeout <ms>           give up waiting for a task after <ms> (default 300000; 0: never)
  --card-refresh <ms>      re-read the card this often, so the tools follow it (default 300000; 0: never)
  --prefix <text>          put <text> before every tool name
  -h, --help               this help`;

/** How often the command re-reads the card unless told (`--card-refresh`). */
export const DEFAULT_CARD_REFRESH_MS = 300_000;

type Env = Readonly<Record<string, string | undefined>>;

function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} needs a whole number (got "${value}")`);
  return Number(value);
}

function tokenProvider(values: Record<string, string | string[] | boolean | undefined>, env: Env): TokenProvider | undefined {
  const text = (name: string) => values[name] as string | undefined;
  const scopes = ((values.scope as string[] | undefined) ?? []).flatMap((s) => s.split(' ')).filter(Boolean);
  return tokenProviderFromFlags(
    { token: text('token'), clientId: text('client-id'), clientSecret: text('client-secret'), tokenUrl: text('token-url'), issuer: text('issuer'), scopes, resource: text('resource') },
    env,
  );
}

/** Parses `argv` (after the script path) with secrets from `env`; throws {@link UsageError} on a bad command line. Messages never show a secret. */
export function parseMcpArgs(argv: readonly string[], env: Env): McpCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        http: { type: 'string' },
        host: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'bridge-token': { type: 'string' },
        'max-body': { type: 'string' },
        'session-idle': { type: 'string' },
        'max-sessions': { type: 'string' },
        name: { type: 'string' },
        token: { type: 'string' },
        'api-key': { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'token-url': { type: 'string' },
        issuer: { type: 'string' },
        scope: { type: 'string', multiple: true },
        resource: { type: 'string' },
        header: { type: 'string', multiple: true, short: 'H' },
        transport: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        prefix: { type: 'string' },
        'card-refresh': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const help = values.help ?? false;
  if (positionals.length > 1) throw new UsageError(`one agent URL, please (got ${positionals.length} arguments)`);
  const raw = positionals[0];
  if (!raw && !help) throw new UsageError('which agent? give its URL: taskwire-mcp <agent-url>');
  const agentUrl = raw && !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? `http://${raw}` : (raw ?? '');
  if (agentUrl && !URL.canParse(agentUrl)) throw new UsageError(`"${raw}" is not a URL`);
  const headers: Record<string, string> = {};
  for (const line of values.header ?? []) {
    const at = line.indexOf(':');
    if (at <= 0) throw new UsageError(`--header needs "Name: value" (got "${line}")`);
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const apiKey = values['api-key'] ?? env.TASKWIRE_API_KEY;
  if (apiKey) headers['x-api-key'] = apiKey;
  const auth = tokenProvider(values, env);
  const bridgeToken = values['bridge-token'] ?? (env.TASKWIRE_MCP_TOKEN || undefined);
  // A token no request can carry (empty, or with spaces) would shut every MCP client out.
  if (values.http !== undefined && bridgeToken !== undefined && !/^\S+$/.test(bridgeToken)) throw new UsageError('--bridge-token (or TASKWIRE_MCP_TOKEN) needs a token without spaces');
  const timeoutMs = wholeNumber('timeout', values.timeout);
  return {
    help,
    agentUrl,
    httpPort: wholeNumber('http', values.http),
    host: values.host ?? '127.0.0.1',
    allowedHosts: values['allowed-host'] ?? [],
    bridgeToken,
    maxBodyBytes: wholeNumber('max-body', values['max-body']),
    sessionIdleMs: wholeNumber('session-idle', values['session-idle']),
    maxSessions: wholeNumber('max-sessions', values['max-sessions']),
    agentName: values.name,
    toolPrefix: values.prefix ?? '',
    timeoutMs,
    cardRefreshMs: wholeNumber('card-refresh', values['card-refresh']) ?? DEFAULT_CARD_REFRESH_MS,
    client: {
      ...(Object.keys(headers).length > 0 && { headers }),
      ...(auth && { auth }),
      ...(values.transport && { preferred: values.transport }),
    },
  };
}
