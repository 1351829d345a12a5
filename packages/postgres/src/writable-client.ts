import pg from 'pg';
import { checkServer, drop, refuseUnreplicated } from './server-check.js';
import { parseTargets, redactTargets, type ConnectionTargets, type TargetHost } from './target-hosts.js';

/**
 * A connection reached a server that does not take writes (a hot standby,
 * or one set read-only): it is dropped and another host is tried. Its
 * `code` is SQLSTATE 25006 (read_only_sql_transaction), which the store
 * treats as a database to retry, never as a failed task.
 */
export class ReadOnlyServerError extends Error {
  override readonly name = 'ReadOnlyServerError';
  readonly code = '25006';
}

/** No host of a connection string reached a writable server; `code` 08001 (unable to establish a connection): retryable. */
export class NoWritableServerError extends Error {
  override readonly name = 'NoWritableServerError';
  readonly code = '08001';
}

/** What the connections of one connection string share: its hosts (none for a string node-postgres reads itself), and the one found writable last. */
class TargetState {
  known: TargetHost | undefined;
  finding: Promise<TargetHost> | undefined;
  constructor(readonly targets: ConnectionTargets | undefined) {}
}

/** The config key that carries a connection string's {@link TargetState} to every client made from it. */
const STATE_KEY = 'taskwireTargets';

type TargetedConfig = pg.ClientConfig & { [STATE_KEY]?: TargetState; Client?: typeof pg.Client };

/** The first host (in the string's order) that opens a connection to a writable server, each tried with a throwaway connection. */
async function findWritable(targets: ConnectionTargets, config: TargetedConfig): Promise<TargetHost> {
  const failures: string[] = [];
  for (const target of targets.hosts) {
    const { [STATE_KEY]: _state, Client: _client, ...plain } = config;
    const probe = new pg.Client({ ...plain, connectionString: target.url });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if (await checkServer(probe, targets.sessionAttrs, checkLimit(config), `${target.host}:${target.port}`)) return target;
      failures.push(`${target.host}:${target.port} takes no writes`);
    } catch (error) {
      failures.push(`${target.host}:${target.port}: ${(error as Error).message}`);
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  throw new NoWritableServerError(`No host of the connection string reached a writable PostgreSQL server (${failures.join('; ')})`);
}

/** Points a client that has not connected yet at `target`. */
function aim(client: pg.Client, target: TargetHost): void {
  const internals = client as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
  internals.host = internals.connectionParameters.host = target.host;
  internals.port = internals.connectionParameters.port = target.port;
}

/** How long the check after a connect may wait for the server's barrier commit: most of the connect timeout (of 5 s when none), which also bounds the connect. */
function checkLimit(config: TargetedConfig): number {
  return Math.round(0.8 * (config.connectionTimeoutMillis || 5_000));
}

/**
 * Connects `client` and checks its server (see {@link checkServer}). With
 * several hosts or `target_session_attrs`, the client goes to the writable
 * host found last, else the first that answers writable (and not stale); a
 * host that fails or reached a server that takes no writes is forgotten
 * (the next connection looks again) and the connect fails with a retryable
 * error. A stale server (see {@link StaleServerError}) is refused the same
 * way, with one host as with several.
 */
async function connectTarget(client: pg.Client, state: TargetState, config: TargetedConfig, connect: () => Promise<unknown>): Promise<void> {
  const targets = state.targets;
  let target = state.known;
  if (targets !== undefined && target === undefined) {
    state.finding ??= findWritable(targets, config).finally(() => (state.finding = undefined));
    target = await state.finding;
  }
  const stream = (client as unknown as { connection?: { stream?: { destroyed?: boolean } } }).connection?.stream;
  if (stream?.destroyed === true) throw new Error('Connection terminated due to connection timeout');
  if (target !== undefined) aim(client, target);
  const forget = () => {
    if (state.known === target) state.known = undefined;
  };
  const internals = client as unknown as { host: string; port: number };
  const where = `${internals.host}:${internals.port}`;
  try {
    await connect();
    if (!(await checkServer(client, targets?.sessionAttrs ?? 'any', checkLimit(config), where))) {
      throw new ReadOnlyServerError(`The PostgreSQL server at ${where} takes no writes (a standby, or read-only): the connection is dropped and another host is tried`);
    }
  } catch (error) {
    forget();
    drop(client);
    throw error;
  }
  if (target !== undefined) state.known = target;
}

const targetingClasses = new WeakMap<typeof pg.Client, typeof pg.Client>();
/** The settings each targeting client was made with (its probes use them). */
const clientConfigs = new WeakMap<pg.Client, TargetedConfig>();

/**
 * The client class of the store's connections: a subclass of `Base` whose
 * `connect` picks the writable host (with several hosts or
 * `target_session_attrs`) and checks the server once connected (see
 * {@link connectTarget}), and whose statements answered with the warning
 * of a cancelled wait for synchronous standbys fail (see
 * {@link refuseUnreplicated}). One class per base.
 */
function targetingClient(Base: typeof pg.Client): typeof pg.Client {
  const known = targetingClasses.get(Base);
  if (known !== undefined) return known;
  class TargetingClient extends Base {
    constructor(options?: TargetedConfig) {
      super(options);
      clientConfigs.set(this, options ?? {});
      // A failover ends connections with a server's FATAL at any moment, also on a client checked out between two
      // statements: never a crash (its next statement fails as "not queryable", a retryable error).
      this.on('error', () => undefined);
      refuseUnreplicated(this);
    }
  }
  const baseConnect = Base.prototype.connect as (this: pg.Client) => Promise<unknown>;
  (TargetingClient.prototype as unknown as { connect: unknown }).connect = function (this: pg.Client, callback?: (error: Error | undefined) => void) {
    const options = clientConfigs.get(this)!;
    const promise = connectTarget(this, options[STATE_KEY]!, options, () => baseConnect.call(this));
    if (callback === undefined) return promise;
    promise.then(() => callback(undefined), (error: Error) => callback(error));
    return undefined;
  };
  targetingClasses.set(Base, TargetingClient);
  return TargetingClient;
}

/**
 * The node-postgres settings that reach `url`: its URL (for a string with
 * several hosts or `target_session_attrs`, see {@link parseTargets}, the
 * first host's), a client class (a subclass of `Base`) that connects to
 * the writable host and checks its server after every (re)connect (see
 * {@link connectTarget}), and the state its connections share. Throws a
 * TypeError for a `target_session_attrs` the store cannot use.
 */
export function targetConfig(url: string, Base: typeof pg.Client = pg.Client): TargetedConfig {
  const targets = parseTargets(url);
  if (targets === undefined) return { connectionString: url, Client: targetingClient(Base), [STATE_KEY]: new TargetState(undefined) };
  return { connectionString: targets.hosts[0]!.url, Client: targetingClient(Base), [STATE_KEY]: new TargetState(targets) };
}

/** A new client for `config` (a pool's options, or {@link targetConfig}'s): of its `Client` class when it names one. */
export function newClient(config: TargetedConfig): pg.Client {
  const Client = config.Client ?? pg.Client;
  return new Client(config);
}

export { redactTargets };
