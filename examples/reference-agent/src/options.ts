import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { grpcAddress } from '@taskwire/server-grpc';
import { publicBaseUrl } from '@taskwire/server-http';

/** The reference agent's command-line options, resolved. */
export interface AgentOptions {
  readonly host: string;
  readonly port: number;
  readonly grpcPort: number;
  /** `memory`, the directory of the file store, a SQLite file (Node 22.5+), or a PostgreSQL database (with `--migrate`: migrated at start). */
  readonly store:
    | { kind: 'memory' }
    | { kind: 'file'; dir: string }
    | { kind: 'sqlite'; path: string }
    | { kind: 'postgres'; url: string; schema: string; migrate: boolean; leaseTtlMs: number | undefined; replicaName?: string | undefined; directUrl?: string | undefined; rerunOrphans?: number | undefined };
  readonly apiKey: string | undefined;
  /** The base URL clients reach the agent at (a load balancer's); the card's HTTP and WebSocket interfaces point there. */
  readonly publicUrl?: string | undefined;
  /** The `host:port` clients reach gRPC at (a load balancer's); the card's gRPC interface points there. */
  readonly publicGrpcUrl?: string | undefined;
  /** Build the card's URLs from the proxy's `Forwarded` / `X-Forwarded-Proto` / `X-Forwarded-Host` headers. */
  readonly trustProxy?: boolean;
  /** Require OIDC / JWT bearer tokens from this issuer for this audience (`--oidc-issuer`, `--audience`). */
  readonly oidc?: { readonly issuer: string; readonly audience: string } | undefined;
  /** On SIGTERM, how long running agents may go on before their tasks fail (SIGINT stops them at once). */
  readonly drainGraceMs: number;
  /** Serve the A2A 1.1 candidates Taskwire implements (`--protocol-v1-1`; the service's `protocol.v1_1`). */
  readonly protocolV1_1?: boolean;
}

/** Default of `--drain-grace-ms`. */
export const DEFAULT_DRAIN_GRACE_MS = 10_000;

/** The usage text printed by `--help` and on bad options. */
export const USAGE = `Usage: npm start [-- options]
  --port <n>          HTTP port: JSON-RPC /a2a/jsonrpc, HTTP+JSON /a2a/rest, WebSocket /a2a/ws, card, web page (default 41241)
  --grpc-port <n>     gRPC port (default: HTTP port + 1)
  --host <addr>       address to listen on (default 127.0.0.1)
  --store <s>         memory | file:DIR | sqlite:FILE (Node 22.5+) | postgres://user@host:5432/db
                      (default: $DATABASE_URL when it is a postgres:// URL, else file:./.taskwire-data)
  --migrate           with a postgres store: apply the schema's migrations before serving
  --direct-store <url>  with a postgres store reached through a transaction-mode pooler (PgBouncer,
                      Supabase, Neon, RDS Proxy): a postgres:// URL straight to the database, for
                      LISTEN, the replica name's lock and --migrate; statements go unprepared
  --schema <name>     with a postgres store: the schema of its tables (default taskwire)
  --lease-ttl-ms <n>  with a postgres store: how long a task's lease lasts unless renewed, which
                      bounds how long a task stays unsettled after its replica vanished (default 15000)
  --rerun-orphans <n>  with a postgres store: run a task whose replica stopped again, up to n times,
                      instead of failing it (default 0: only for agents whose work can be repeated)
  --replica-name <name>  with a postgres store: a name no other live replica has and this one's next
                      start has again (a pod name); a restart settles at once what its crashed
                      predecessor left running (default with a fixed --port: <hostname>:<port>, with
                      @<host> unless it listens on every address; a hash of it when that is long)
  --drain-grace-ms <n>  on SIGTERM: stop taking work, let running agents finish within this, then
                      fail what is left and close streams so clients resume elsewhere (default 10000)
  --protocol-v1-1     serve the A2A 1.1 candidates: a first send's Idempotency-Key answers its
                      retries (on any replica) with the task it made, running nothing twice; the card
                      lists every interface as 1.1 first, then as 1.0 for clients that speak 1.0 only
  --api-key <key>     require this key (x-api-key or Authorization: Bearer)
  --public-url <url>  behind a load balancer: its base URL (e.g. https://agents.example.com); the card's
                      JSON-RPC, HTTP+JSON and WebSocket interfaces point there instead of at this process
  --public-grpc-url <host:port>  the balancer's gRPC address for the card; with --public-url or
                      --trust-proxy and without it, the card lists no gRPC interface
  --trust-proxy       build the card's URLs from the proxy's Forwarded / X-Forwarded-Proto /
                      X-Forwarded-Host headers (only behind a proxy that sets them)
  --oidc-issuer <url> require JWT access tokens from this OpenID provider (keys from its discovery
                      document), with scopes tasks:read / tasks:write / tasks:push per method
  --audience <uri>    with --oidc-issuer: the audience (resource) the tokens must name
  --help              this text`;

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/**
 * Parses the command line. Relative store paths are taken from the directory
 * the user ran the command in (`INIT_CWD` under pnpm); without `--store`, a
 * postgres:// `DATABASE_URL` in `env` is the store. Throws a TypeError with
 * a readable message on bad options.
 */
export function parseOptions(
  argv: readonly string[],
  cwd = process.env.INIT_CWD ?? process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
): AgentOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', default: '41241' },
      'grpc-port': { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      store: { type: 'string' },
      migrate: { type: 'boolean', default: false },
      'direct-store': { type: 'string' },
      schema: { type: 'string', default: 'taskwire' },
      'lease-ttl-ms': { type: 'string' },
      'replica-name': { type: 'string' },
      'rerun-orphans': { type: 'string' },
      'drain-grace-ms': { type: 'string' },
      'api-key': { type: 'string' },
      'public-url': { type: 'string' },
      'public-grpc-url': { type: 'string' },
      'trust-proxy': { type: 'boolean', default: false },
      'protocol-v1-1': { type: 'boolean', default: false },
      'oidc-issuer': { type: 'string' },
      audience: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const port = Number(values.port);
  const grpcPort = values['grpc-port'] === undefined ? port + 1 : Number(values['grpc-port']);
  for (const [name, n] of [['--port', port], ['--grpc-port', grpcPort]] as const) {
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new TypeError(`${name} must be a port number (0-65535)`);
  }
  const fromEnv = env.DATABASE_URL && POSTGRES_URL.test(env.DATABASE_URL) ? env.DATABASE_URL : undefined;
  const store = values.store ?? fromEnv ?? 'file:./.taskwire-data';
  let parsed: AgentOptions['store'];
  if (store === 'memory') parsed = { kind: 'memory' };
  else if (store.startsWith('file:') && store.length > 5) {
    const dir = store.slice(5);
    parsed = { kind: 'file', dir: isAbsolute(dir) ? dir : resolve(cwd, dir) };
  } else if (store.startsWith('sqlite:') && store.length > 7) {
    const path = store.slice(7);
    parsed = { kind: 'sqlite', path: path === ':memory:' || isAbsolute(path) ? path : resolve(cwd, path) };
  } else if (POSTGRES_URL.test(store)) {
    const leaseTtlMs = milliseconds(values['lease-ttl-ms'], '--lease-ttl-ms', 100);
    // A fixed port on this host's address names the replica: no live process can hold it beside this one.
    const replicaName = values['replica-name'] ?? (port !== 0 ? defaultReplicaName(hostname(), values.host!, port) : undefined);
    const directUrl = values['direct-store'];
    if (directUrl !== undefined && !POSTGRES_URL.test(directUrl)) throw new TypeError(`--direct-store must be a postgres:// URL, not "${directUrl}"`);
    const rerun = values['rerun-orphans'];
    const rerunOrphans = rerun === undefined ? undefined : Number(rerun);
    if (rerunOrphans !== undefined && !(Number.isInteger(rerunOrphans) && rerunOrphans >= 0)) throw new TypeError(`--rerun-orphans must be a whole number, 0 or more, not "${rerun}"`);
    parsed = { kind: 'postgres', url: store, schema: values.schema!, migrate: values.migrate!, leaseTtlMs, replicaName, directUrl, rerunOrphans };
  } else throw new TypeError(`--store must be "memory", "file:DIR", "sqlite:PATH" or a postgres:// URL, not "${store}"`);
  if (parsed.kind !== 'postgres' && values.migrate) throw new TypeError('--migrate applies to a postgres store only');
  if (parsed.kind !== 'postgres' && values['lease-ttl-ms'] !== undefined) throw new TypeError('--lease-ttl-ms applies to a postgres store only');
  if (parsed.kind !== 'postgres' && values['direct-store'] !== undefined) throw new TypeError('--direct-store applies to a postgres store only');
  if (parsed.kind !== 'postgres' && values['replica-name'] !== undefined) throw new TypeError('--replica-name applies to a postgres store only');
  if (parsed.kind !== 'postgres' && values['rerun-orphans'] !== undefined) throw new TypeError('--rerun-orphans applies to a postgres store only');
  const drainGraceMs = milliseconds(values['drain-grace-ms'], '--drain-grace-ms', 0) ?? DEFAULT_DRAIN_GRACE_MS;
  const issuer = values['oidc-issuer'];
  if ((issuer === undefined) !== (values.audience === undefined)) throw new TypeError('--oidc-issuer and --audience go together');
  if (issuer !== undefined && values['api-key'] !== undefined) throw new TypeError('give either --api-key or --oidc-issuer, not both');
  const oidc = issuer !== undefined ? { issuer, audience: values.audience! } : undefined;
  return {
    host: values.host!,
    port,
    grpcPort,
    store: parsed,
    apiKey: values['api-key'],
    oidc,
    publicUrl: values['public-url'] === undefined ? undefined : publicBaseUrl(values['public-url'], '--public-url'),
    publicGrpcUrl: values['public-grpc-url'] === undefined ? undefined : grpcAddress(values['public-grpc-url'], '--public-grpc-url'),
    trustProxy: values['trust-proxy']!,
    drainGraceMs,
    protocolV1_1: values['protocol-v1-1']!,
  };
}

/** The longest replica name the coordinator takes. */
const MAX_REPLICA_NAME = 40;
/** Listening on every address: the host name alone tells the process apart. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/**
 * The replica name of the process listening on `host`:`port` of the
 * machine `machine` (its host name: a pod name in Kubernetes): unique per
 * live process, since no two processes listen on one address and port,
 * and the same at its next start. `<machine>:<port>` when it listens on
 * every address, else `<machine>@<host>:<port>`; when that is longer than
 * 40 characters, its start then `~` and a hash of the whole of it (never a
 * bare prefix: the pods of one Deployment share a long one).
 */
export function defaultReplicaName(machine: string, host: string, port: number): string {
  const where = WILDCARD_HOSTS.has(host) ? machine : `${machine}@${host}`;
  const whole = `${where}:${port}`;
  if (whole.length <= MAX_REPLICA_NAME && !whole.includes('#')) return whole;
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8);
  const room = MAX_REPLICA_NAME - hash.length - 1 - `:${port}`.length;
  return `${where.replace(/#/g, '-').slice(0, room)}~${hash}:${port}`;
}

/** A whole number of milliseconds of at least `min` from an option, or undefined when it is not given. */
function milliseconds(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < min) throw new TypeError(`${name} must be a whole number of milliseconds, at least ${min}`);
  return ms;
}
